<?php

// The blog example: `bin/petrel start examples/blog/app.php` (coroutine mode, the default),
// `--mode=sync`, or classic mode through public/index.php (php-fpm, `php -S`).
//   GET /                 two middlewares, User::find(1), a template
//   GET /users?page=N     paginated list        GET /users/{id}      one user (404 if none)
//   GET /users/new        sign-up form          POST /users          validation, CSRF
//   GET /api/users/{id}   JSON
// DATABASE_URL picks the database (sqlite:///path, mysql://…, pgsql://…; default
// examples/blog/var/blog.sqlite), created and seeded on first start. Sessions (CSRF tokens,
// flash messages) are files in var/sessions that every worker shares, or Redis when
// REDIS_URL is set (shared between machines too). BLOG_* overrides config.php.
declare(strict_types=1);

require_once __DIR__ . '/autoload.php';

return Blog\Blog::app(Blog\Settings::fromEnvironment());
