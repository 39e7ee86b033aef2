<?php

// examples/hello.php in classic mode: php-fpm runs this front controller once per request
// (autoload, boot the app, handle one request, exit) — the baseline `petrel bench hello`
// compares Petrel against.
declare(strict_types=1);

require __DIR__ . '/../../vendor/autoload.php';

Petrel\Web\Classic\FrontController::serve(static fn () => require __DIR__ . '/../../examples/hello.php');
