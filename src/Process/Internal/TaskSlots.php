<?php

declare(strict_types=1);

namespace Petrel\Process\Internal;

use Petrel\Observability\Internal\SharedMemory;

/**
 * The master's task slots: one region of shared memory, mapped before any worker is forked,
 * with a TaskSlot per task worker process (the task it is running).
 *
 * Slots are per process, not per worker number, as the blocking watchdog's: a task worker
 * being replaced (recycle, reload) runs beside its replacement. claim() before the fork
 * takes a free slot and marks it idle; forget() when the master reaps the worker reads what
 * the slot said into its WorkerHandle (the worker is dead: nothing writes it any more) and
 * frees it; release() frees a slot whose fork failed.
 *
 * @internal
 */
final class TaskSlots
{
    private readonly SharedMemory $memory;
    /** @var array<int, TaskSlot> by index, the slots claimed */
    private array $claimed = [];

    /**
     * @param int $capacity task worker processes at the same time at most
     * @throws \RuntimeException where shared memory cannot be had (no FFI)
     */
    public function __construct(public readonly int $capacity)
    {
        if ($capacity < 1) {
            throw new \InvalidArgumentException("The capacity must be >= 1, got {$capacity}");
        }
        $this->memory = new SharedMemory($capacity * TaskSlot::CELLS);
    }

    /**
     * The slots for $taskWorkers task workers: room for a reload's new generation beside the
     * old one still draining, and recycles. Null without task workers, or where shared
     * memory cannot be had (no FFI): the master then knows of a killed task worker's task
     * only what its last status said (WorkerHandle::lastTask()), as before there were slots.
     */
    public static function map(int $taskWorkers): ?self
    {
        if ($taskWorkers < 1) {
            return null;
        }
        try {
            return new self(\max(16, 4 * $taskWorkers));
        } catch (\RuntimeException) {
            return null;
        }
    }

    /** A free slot, idle, for a task worker about to be forked; null when all are in use. */
    public function claim(): ?TaskSlot
    {
        for ($index = 0; $index < $this->capacity; $index++) {
            if (!isset($this->claimed[$index])) {
                /** @phpstan-ignore-next-line FFI pointer arithmetic */
                $slot = new TaskSlot($index, $this->memory->cells + $index * TaskSlot::CELLS);
                $slot->end();

                return $this->claimed[$index] = $slot;
            }
        }

        return null;
    }

    /** Frees a claimed slot (its fork failed). */
    public function release(TaskSlot $slot): void
    {
        unset($this->claimed[$slot->index]);
    }

    /** $worker was reaped: what its slot said goes into WorkerHandle::$taskAtExit, and the slot is freed. */
    public function forget(WorkerHandle $worker): void
    {
        if ($worker->taskSlot !== null) {
            $worker->taskAtExit = $worker->taskSlot->read();
            $this->release($worker->taskSlot);
        }
    }
}
