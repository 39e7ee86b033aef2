<?php

// The blog's settings. Every key can be overridden from the environment with the BLOG_
// prefix (Petrel\Web\Config): BLOG_DEBUG=1, BLOG_PER_PAGE=10, BLOG_VAR_DIR=/srv/blog,
// BLOG_TABLE_PREFIX=demo_, BLOG_DB_POOL=32. The database and Redis come from DATABASE_URL
// and REDIS_URL.
declare(strict_types=1);

return [
    'debug' => false,               // exception details in 500 pages, templates recompiled when changed
    'per_page' => 20,               // users per page on /users
    'var_dir' => __DIR__ . '/var',  // SQLite file, compiled templates (classic mode), file sessions
    'table_prefix' => '',           // e.g. "blog_" to share a database with other apps
    'db_pool' => 16,                // database connections per worker (one per request in a query)
];
