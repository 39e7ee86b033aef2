<?php

declare(strict_types=1);

namespace Petrel\Task;

/**
 * Runs tasks: TaskClient sends them to the task workers, InlineTaskRunner runs them in the
 * calling process (tests, CLI scripts). See Tasks.
 */
interface TaskRunner
{
    /**
     * Runs $task with $args and returns its result, or throws what it threw.
     *
     * @param string $task an invokable class (one instance per class and process, built with
     *        no arguments and reused) or a function name ("usleep", "App\resize", "A::b")
     * @param array<array-key, mixed> $args positional, or by name with string keys;
     *        serializable (no closures or resources)
     * @param float|null $timeout seconds, queueing included; null: the runner's default
     * @throws TaskException
     * @throws TaskError
     */
    public function run(string $task, array $args = [], ?float $timeout = null): mixed;
}
