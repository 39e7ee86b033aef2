<?php

// bin/petrel start examples/sleep.php — GET /?ms=N waits N ms with a coroutine sleep, then answers "slept N".
declare(strict_types=1);

use Petrel\Http\Request;
use Petrel\Http\Response;

use function Petrel\sleep;

return static function (Request $request): Response {
    $ms = $request->getQueryParam('ms', '0');
    if (!\is_string($ms) || !\ctype_digit($ms) || (int) $ms > 60000) {
        return Response::text("ms must be a whole number of milliseconds, at most 60000\n", 400);
    }
    sleep((int) $ms / 1000);

    return Response::text("slept {$ms}");
};
