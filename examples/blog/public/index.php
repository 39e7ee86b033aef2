<?php

// Classic mode: the blog behind php-fpm or PHP's built-in server, booted per request.
//   php -S 127.0.0.1:8000 examples/blog/public/index.php
//   nginx: root examples/blog/public; fastcgi_param SCRIPT_FILENAME $document_root/index.php
declare(strict_types=1);

// php -S: real files under public/ are served by the built-in server itself.
if (PHP_SAPI === 'cli-server') {
    $file = realpath(__DIR__ . rawurldecode((string) parse_url($_SERVER['REQUEST_URI'] ?? '/', PHP_URL_PATH)));
    if ($file !== false && $file !== __FILE__ && is_file($file) && str_starts_with($file, __DIR__ . '/')) {
        return false;
    }
}

require_once __DIR__ . '/../autoload.php';

Petrel\Web\Classic\FrontController::serve(static fn () => require __DIR__ . '/../app.php');
