<?php

declare(strict_types=1);

namespace Petrel\Task;

/**
 * Runs blocking or CPU-heavy work in the task workers (`bin/petrel start APP
 * --task-workers=N`) while the calling coroutine waits and its HTTP worker serves on:
 *
 *     $thumbnail = Tasks::run(MakeThumbnail::class, ['path' => $path], timeout: 10);
 *     Tasks::run('usleep', [500000]);
 *
 * A task is an invokable class (one instance per task worker, built with no arguments and
 * reused) or a function name; its arguments and result cross processes through serialize(),
 * so closures and resources are refused. Task workers are separate processes forked by the
 * master: they share no state with the HTTP workers (no statics, no connections, no APP
 * objects), only the code — the master's autoloader plus the Composer autoloader of the
 * APP's project. An exception thrown by the task is rethrown here with its class, message,
 * code and the task worker's trace (TaskException when its class cannot be rebuilt).
 *
 * In an HTTP worker of a server with task workers, the runner is a TaskClient. Elsewhere
 * (tests, CLI scripts) call Tasks::inline() to run tasks in the calling process, or
 * setRunner() with a TaskClient of your own.
 */
final class Tasks
{
    private static ?TaskRunner $runner = null;

    /**
     * @param array<array-key, mixed> $args
     * @throws TaskException the task failed (TaskTimeoutException, TaskQueueFullException,
     *         TaskWorkerDiedException), or whatever the task threw
     * @throws TaskError misuse, or no task workers in this process
     * @see TaskRunner::run()
     */
    public static function run(string $task, array $args = [], ?float $timeout = null): mixed
    {
        $runner = self::$runner ?? throw new TaskError(
            'No task workers here: start the server with --task-workers=N (e.g. bin/petrel start app.php --task-workers=2), '
            . 'or call Petrel\Task\Tasks::inline() in tests and CLI scripts to run tasks in the calling process',
        );

        return $runner->run($task, $args, $timeout);
    }

    /** Runs tasks in the calling process from now on (see InlineTaskRunner). */
    public static function inline(): void
    {
        self::$runner = new InlineTaskRunner();
    }

    /** Installs the runner Tasks::run() uses in this process (null: none). */
    public static function setRunner(?TaskRunner $runner): void
    {
        self::$runner = $runner;
    }

    public static function runner(): ?TaskRunner
    {
        return self::$runner;
    }
}
