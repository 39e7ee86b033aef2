<?php

// A Symfony 6.4 app on Petrel: `bin/petrel start examples/symfony/app.php` (sync mode by
// default: a Symfony kernel keeps per-request state in its container). The same app runs
// classic behind php-fpm through public/index.php. Its dependencies are Petrel's dev
// dependencies (`composer install`). APP_ENV (prod) and APP_DEBUG (0) as in any Symfony app.
//   GET /             a Twig page             GET|POST /greet     a form
//   GET /api/hello    JSON from a service     GET /api/request    what Symfony saw of the request
//   GET /download     a BinaryFileResponse (Range works)           GET /stream   a StreamedResponse
//   GET /boom         an exception: Symfony's error page
declare(strict_types=1);

require_once __DIR__ . '/autoload.php';

return new App\Kernel((string) ($_SERVER['APP_ENV'] ?? 'prod'), (bool) ($_SERVER['APP_DEBUG'] ?? false));
