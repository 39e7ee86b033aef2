<?php

declare(strict_types=1);

namespace Petrel\Loop\Internal;

use Closure;

/**
 * One registration with a driver. Internal: mutated only by the driver that made it.
 *
 * @internal
 */
final class Watcher
{
    public const DEFER = 0;
    public const DELAY = 1;
    public const REPEAT = 2;
    public const READABLE = 3;
    public const WRITABLE = 4;
    public const SIGNAL = 5;

    public const NAMES = ['defer', 'delay', 'repeat', 'readable', 'writable', 'signal'];

    public bool $enabled = true;
    public bool $referenced = true;
    /** Due time for timers (monotonic seconds). */
    public float $due = 0.0;
    /** Position in the timer heap, -1 when not in it. */
    public int $heapIndex = -1;

    /**
     * @param mixed $value the stream, the signal number, or the interval in seconds
     */
    public function __construct(
        public readonly int $id,
        public readonly int $type,
        public readonly Closure $callback,
        public readonly mixed $value = null,
    ) {
    }
}
