<?php

declare(strict_types=1);

namespace Petrel\Task\Internal;

/**
 * One task as the task worker receives it.
 *
 * @internal
 */
final class TaskRequest
{
    /** @param array<array-key, mixed> $args */
    public function __construct(
        public readonly string $task,
        public readonly array $args,
        /** Wall-clock time (microtime) after which nobody waits for the result. */
        public readonly float $deadline,
    ) {
    }
}
