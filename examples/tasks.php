<?php

// bin/petrel start examples/tasks.php --task-workers=2
// GET /block?ms=N runs PHP's blocking usleep(N * 1000) in a task worker: this request waits,
// the HTTP worker does not, so GET / answers at once meanwhile.
declare(strict_types=1);

use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Task\TaskQueueFullException;

use function Petrel\task;

return static function (Request $request): Response {
    if ($request->getPath() !== '/block') {
        return Response::text("Hello from worker pid " . \getmypid() . "\n");
    }
    $ms = $request->getQueryParam('ms', '100');
    if (!\is_string($ms) || !\ctype_digit($ms) || (int) $ms > 60000) {
        return Response::text("ms must be a whole number of milliseconds, at most 60000\n", 400);
    }
    try {
        task('usleep', [(int) $ms * 1000]); // a blocking call: it would stall the whole worker here
    } catch (TaskQueueFullException $full) {
        return Response::text($full->getMessage() . "\n", 503);
    }

    return Response::text("blocked {$ms} ms in a task worker\n");
};
