<?php

declare(strict_types=1);

namespace Petrel\Task\Internal;

use Petrel\Task\TaskError;
use Petrel\Task\TaskRunner;

/**
 * The runner of a task worker: it refuses tasks, saying why. Without one, Tasks::run() in a
 * task told the user to start the server with --task-workers, which they had. A task that
 * waits for another task holds its task worker meanwhile: with every task worker doing so,
 * none is left to run what they wait for, and all of them time out.
 *
 * @internal
 */
final class TaskWorkerRunner implements TaskRunner
{
    public function run(string $task, array $args = [], ?float $timeout = null): mixed
    {
        throw new TaskError("Task {$task} cannot be submitted from a task worker (pid " . \getmypid() . '): a task waiting for another holds its task worker, and with all of them waiting none is left to run their tasks; call the code directly here, or submit both tasks from the HTTP worker');
    }
}
