<?php

declare(strict_types=1);

namespace Petrel\Task;

/**
 * Misuse of tasks: a task that is not an invokable class or a function name, arguments that
 * cannot cross processes (closures, resources, unserializable objects), or no task workers
 * to run it.
 */
final class TaskError extends \Error
{
}
