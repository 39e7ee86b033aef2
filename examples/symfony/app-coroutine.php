<?php

// The same Symfony app as app.php, but preferring coroutine mode:
//   bin/petrel start examples/symfony/app-coroutine.php
// KernelHandler(concurrent: true) tells Petrel that many requests may be in flight in one
// worker at once. That is safe here because no controller of this app keeps per-request
// state across a suspension: none waits on a coroutine client (database, Redis, HTTP,
// Petrel\sleep), so each request runs from start to end without letting another in (only
// /stream and /download may wait on the client while they write, and their callbacks touch
// no per-request service), and none uses the session or a security token. An app whose controllers do wait on I/O must
// check KernelHandler's rules before doing this; app.php (sync mode) is always safe.
// `petrel bench symfony` compares the two, and nginx + php-fpm through public/index.php.
declare(strict_types=1);

require_once __DIR__ . '/autoload.php';

$kernel = new App\Kernel((string) ($_SERVER['APP_ENV'] ?? 'prod'), (bool) ($_SERVER['APP_DEBUG'] ?? false));

return new Petrel\Symfony\KernelHandler($kernel, concurrent: true);
