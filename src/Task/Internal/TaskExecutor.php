<?php

declare(strict_types=1);

namespace Petrel\Task\Internal;

use Petrel\Task\TaskError;

/**
 * Turns a task name into something to call and calls it. An invokable class gets one
 * instance per process, built with no arguments on first use and reused for every later
 * task (so it may keep a connection or a loaded model); a function name ("usleep",
 * "App\resize", "App\Images::resize") is called as is. String keys in the arguments are
 * named arguments.
 *
 * @internal
 */
final class TaskExecutor
{
    /** @var array<string, object> invokable instances by class */
    private array $instances = [];

    /**
     * Checks that $task names something a task worker can run.
     *
     * @throws TaskError
     */
    public static function check(string $task): void
    {
        if (\class_exists($task)) {
            if (!\method_exists($task, '__invoke')) {
                throw new TaskError("Task class {$task} is not invokable: give it a public __invoke() method");
            }

            return;
        }
        if (!\is_callable($task)) {
            throw new TaskError("Task \"{$task}\" is neither an autoloadable invokable class nor a function (closures cannot cross processes: pass a class name)");
        }
    }

    /**
     * @param array<array-key, mixed> $args
     * @throws TaskError when $task cannot be run here
     */
    public function run(string $task, array $args): mixed
    {
        self::check($task);
        if (\class_exists($task)) {
            $instance = $this->instances[$task] ??= new $task();
            \assert(\is_callable($instance));

            return $instance(...$args);
        }
        \assert(\is_callable($task));

        return $task(...$args);
    }
}
