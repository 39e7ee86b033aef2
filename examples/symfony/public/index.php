<?php

// Classic mode: the same Symfony app behind php-fpm (or `php -S`), booted per request by
// Symfony's usual front controller code; Petrel is not involved.
//   php -S 127.0.0.1:8000 examples/symfony/public/index.php
//   nginx: root examples/symfony/public; fastcgi_param SCRIPT_FILENAME $document_root/index.php
declare(strict_types=1);

use Symfony\Component\HttpFoundation\Request;

$kernel = require __DIR__ . '/../app.php';
$request = Request::createFromGlobals();
$response = $kernel->handle($request);
$response->send();
$kernel->terminate($request, $response);
