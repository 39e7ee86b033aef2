<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Process;

use Petrel\Process\Internal\TaskSlot;
use Petrel\Process\Internal\TaskSlots;
use Petrel\Process\Internal\WorkerHandle;
use PHPUnit\Framework\TestCase;

final class TaskSlotsTest extends TestCase
{
    private TaskSlots $slots;

    protected function setUp(): void
    {
        try {
            $this->slots = new TaskSlots(1);
        } catch (\RuntimeException $error) {
            self::markTestSkipped("no shared memory here: {$error->getMessage()}");
        }
    }

    public function testASlotSaysTheTaskRunningAndIsIdleOnceItEnds(): void
    {
        $slot = $this->claim();
        self::assertNull($slot->read(), 'a claimed slot is idle');
        $slot->start('App\\Report::build', 1_700_000_000.25, 1_700_000_006.5);
        self::assertSame(['task' => 'App\\Report::build', 'startedAt' => 1_700_000_000.25, 'killAt' => 1_700_000_006.5], $slot->read());
        $slot->start('usleep', 1_700_000_001.0, null);
        self::assertSame(['task' => 'usleep', 'startedAt' => 1_700_000_001.0, 'killAt' => null], $slot->read(), 'the next task replaces it, all of it');
        $slot->end();
        self::assertNull($slot->read());
    }

    public function testALongNameIsCutWithAMarker(): void
    {
        $slot = $this->claim();
        $slot->start(\str_repeat('A', 500), 1.0, null);
        $task = $slot->read()['task'] ?? '';
        self::assertSame(TaskSlot::NAME_BYTES, \strlen($task));
        self::assertSame(\str_repeat('A', TaskSlot::NAME_BYTES - \strlen(TaskSlot::CUT)) . TaskSlot::CUT, $task);
        $slot->start(\str_repeat('B', TaskSlot::NAME_BYTES), 1.0, null);
        self::assertSame(\str_repeat('B', TaskSlot::NAME_BYTES), $slot->read()['task'] ?? null, 'a name that fits is whole');
    }

    /** The master reads a reaped worker's slot into its handle, and the slot is free again, idle. */
    public function testForgetReadsTheSlotIntoTheWorkerAndFreesIt(): void
    {
        $slot = $this->claim();
        self::assertNull($this->slots->claim(), 'one slot, in use');
        $slot->start('App\\Report::build', 5.0, 11.0);
        $pipe = \fopen('php://memory', 'r');
        self::assertIsResource($pipe);
        $worker = new WorkerHandle(123, 2, $pipe, WorkerHandle::TASK, 1, $slot);

        $this->slots->forget($worker);

        self::assertSame(['task' => 'App\\Report::build', 'startedAt' => 5.0, 'killAt' => 11.0], $worker->taskAtExit);
        $again = $this->claim();
        self::assertSame($slot->index, $again->index);
        self::assertNull($again->read(), 'claimed again: idle');
    }

    /** A forked child's writes are what the parent reads: the memory is shared, not copied. */
    public function testTheParentReadsWhatAForkedChildWrote(): void
    {
        $slot = $this->claim();
        $pid = \pcntl_fork();
        if ($pid === 0) {
            $slot->start('written by the child', 2.0, 3.0);
            \posix_kill((int) \getmypid(), \SIGKILL); // no shutdown of PHPUnit's in the child
        }
        \pcntl_waitpid($pid, $status);
        self::assertSame(['task' => 'written by the child', 'startedAt' => 2.0, 'killAt' => 3.0], $slot->read());
    }

    private function claim(): TaskSlot
    {
        $slot = $this->slots->claim();
        self::assertNotNull($slot);

        return $slot;
    }
}
