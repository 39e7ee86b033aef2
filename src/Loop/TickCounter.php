<?php

declare(strict_types=1);

namespace Petrel\Loop;

/**
 * The loop's progress, published for a watchdog in another process (the blocking detector,
 * Petrel\Observability\BlockingDetector, whose watchdog is the master): the drivers add one
 * to $count before they wait for I/O (odd: waiting) and after (even: running callbacks),
 * and copy it into $cell, this worker's slot in shared memory, when one is set. Nothing
 * when $cell is null (the drivers test it first). The epoll driver, the default, does what
 * waiting() and running() do inline (Internal\EpollStreams::wait()): ~1,100 instructions less per
 * loop wait than the two calls.
 *
 * Static because it describes the one loop of this process and is read from a signal
 * handler; a forked worker sets its own $cell.
 */
final class TickCounter
{
    public static int $count = 0;
    /** An `int64_t *` in shared memory (its first cell is the count), or null: not published. */
    public static ?\FFI\CData $cell = null;

    /** Before the driver waits for I/O. */
    public static function waiting(): void
    {
        // TickCounter::$…, not self::$…: only a named class's static property is cached (Scheduler::get()).
        if (TickCounter::$cell !== null) {
            TickCounter::$cell[0] = ++TickCounter::$count;
        }
    }

    /** After the wait, before the callbacks run. */
    public static function running(): void
    {
        if (TickCounter::$cell !== null) {
            TickCounter::$cell[0] = ++TickCounter::$count;
        }
    }

    public static function isWaiting(): bool
    {
        return TickCounter::$count % 2 === 1;
    }
}
