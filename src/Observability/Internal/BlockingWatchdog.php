<?php

declare(strict_types=1);

namespace Petrel\Observability\Internal;

/**
 * The master's half of the blocking detector (Petrel\Observability\BlockingDetector): one
 * region of shared memory, mapped before any worker is forked, with a slot of three int64
 * cells per worker process, and poll(), which the master's loop calls every period().
 *
 * A slot's cells: TICKS, the worker's loop tick count (Loop\TickCounter: odd while the loop
 * waits for I/O, even while callbacks run; UNWATCHED until the worker's BlockingDetector
 * starts and again once it stops), SIGNALLED, the count the watchdog signalled for, and
 * SINCE, when that count was first seen (hrtime ns). When a watched slot's count is even
 * and has not moved for the threshold, poll() writes SIGNALLED and SINCE, then sends the
 * worker one SIGALRM: once per blocking episode (per count value).
 *
 * Slots are per process, not per worker number: a worker being replaced (recycle, reload)
 * runs beside its replacement. claim() before the fork resets a free slot; watch() after
 * it names the pid; forget() when the master reaps the worker frees it. The master is the
 * parent, so a pid it has not reaped cannot be reused: a signal never reaches a stranger.
 *
 * @internal
 */
final class BlockingWatchdog
{
    public const CELLS = 3;
    public const TICKS = 0;
    public const SIGNALLED = 1;
    public const SINCE = 2;
    public const UNWATCHED = -1;

    public readonly float $period;
    private readonly int $thresholdNanoseconds;
    private readonly SharedMemory $memory;
    /** @var array<int, \FFI\CData> slot => its first cell (`int64_t *`), for the slots in use */
    private array $slots = [];
    /** @var array<int, int> slot => pid (0 between claim() and watch()) */
    private array $pids = [];
    /** @var array<int, array{int, int, int}> slot => [count last seen, since (ns), count signalled] */
    private array $seen = [];

    /**
     * @param int $capacity worker processes watched at the same time at most
     * @throws \RuntimeException where shared memory cannot be had (no FFI)
     */
    public function __construct(public readonly float $thresholdSeconds, public readonly int $capacity)
    {
        if ($thresholdSeconds <= 0 || $capacity < 1) {
            throw new \InvalidArgumentException("The threshold must be > 0 s and the capacity >= 1, got {$thresholdSeconds} s, {$capacity}");
        }
        $this->memory = new SharedMemory($capacity * self::CELLS);
        $this->period = \max(0.001, $thresholdSeconds / 4);
        $this->thresholdNanoseconds = (int) ($thresholdSeconds * 1e9);
    }

    /** Reserves a free slot for a worker about to be forked, reset to UNWATCHED; null when all are in use. */
    public function claim(): ?int
    {
        for ($slot = 0; $slot < $this->capacity; $slot++) {
            if (!isset($this->pids[$slot])) {
                /** @phpstan-ignore-next-line FFI pointer arithmetic */
                $cells = $this->memory->cells + $slot * self::CELLS;
                $cells[self::TICKS] = self::UNWATCHED;
                $cells[self::SIGNALLED] = self::UNWATCHED;
                $cells[self::SINCE] = 0;
                $this->slots[$slot] = $cells;
                $this->pids[$slot] = 0;
                $this->seen[$slot] = [self::UNWATCHED, 0, self::UNWATCHED];

                return $slot;
            }
        }

        return null;
    }

    /** The slot's cells (`int64_t *`), for the worker's BlockingDetector::start(). */
    public function cells(int $slot): \FFI\CData
    {
        return $this->slots[$slot] ?? throw new \LogicException("Slot {$slot} is not claimed");
    }

    /** After the fork: the slot's worker is $pid. */
    public function watch(int $slot, int $pid): void
    {
        if (!isset($this->pids[$slot]) || $pid <= 0) {
            throw new \LogicException("Slot {$slot} is not claimed, or pid {$pid} is not a process");
        }
        $this->pids[$slot] = $pid;
    }

    /** Frees the slot of $pid (reaped), if it has one. */
    public function forget(int $pid): void
    {
        $slot = \array_search($pid, $this->pids, true);
        if (\is_int($slot)) {
            $this->release($slot);
        }
    }

    /** Frees a claimed slot (e.g. the fork failed). */
    public function release(int $slot): void
    {
        if (isset($this->slots[$slot])) {
            $this->slots[$slot][self::TICKS] = self::UNWATCHED;
        }
        unset($this->slots[$slot], $this->pids[$slot], $this->seen[$slot]);
    }

    /**
     * Reads every slot and signals the workers whose loop has been running one tick for
     * the threshold. Returns whether any worker is watched now (else the master need not
     * wake up every period()).
     */
    public function poll(): bool
    {
        $now = (int) \hrtime(true);
        $watched = false;
        foreach ($this->pids as $slot => $pid) {
            $cells = $this->slots[$slot];
            $count = (int) $cells[self::TICKS];
            [$seen, $since, $signalled] = $this->seen[$slot];
            if ($count < 0 || $count % 2 === 1 || $count !== $seen) {
                $this->seen[$slot] = [$count, $now, $signalled];
                $watched = $watched || $count >= 0;
                continue;
            }
            $watched = true;
            if ($count !== $signalled && $pid > 0 && $now - $since >= $this->thresholdNanoseconds) {
                $cells[self::SIGNALLED] = $count;
                $cells[self::SINCE] = $since;
                $this->seen[$slot][2] = $count;
                \posix_kill($pid, \SIGALRM);
            }
        }

        return $watched;
    }
}
