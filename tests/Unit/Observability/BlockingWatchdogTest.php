<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Observability;

use Petrel\Observability\Internal\BlockingWatchdog;
use PHPUnit\Framework\Attributes\RequiresPhpExtension;
use PHPUnit\Framework\TestCase;

/** The master's watchdog, signalling this process (as if it were a worker) through its slot. */
#[RequiresPhpExtension('ffi')]
#[RequiresPhpExtension('pcntl')]
#[RequiresPhpExtension('posix')]
final class BlockingWatchdogTest extends TestCase
{
    private const THRESHOLD = 0.02;

    private int $alarms = 0;
    private bool $async = false;

    protected function setUp(): void
    {
        $this->async = \pcntl_async_signals(true);
        \pcntl_signal(\SIGALRM, function (): void {
            ++$this->alarms;
        });
    }

    protected function tearDown(): void
    {
        \pcntl_signal_dispatch();
        \pcntl_signal(\SIGALRM, \SIG_DFL);
        \pcntl_async_signals($this->async);
    }

    public function testSlotsAreClaimedUpToTheCapacityAndFreedWhenTheWorkerIsForgotten(): void
    {
        $watchdog = new BlockingWatchdog(self::THRESHOLD, 3);
        $slots = [$watchdog->claim(), $watchdog->claim(), $watchdog->claim()];
        self::assertSame([0, 1, 2], $slots);
        self::assertNull($watchdog->claim(), 'all in use');
        $watchdog->watch(1, 4242);
        $watchdog->forget(4242);
        self::assertSame(1, $watchdog->claim(), 'the freed slot is reused');
        $watchdog->release(2);
        self::assertSame(2, $watchdog->claim());
    }

    public function testAClaimedSlotStartsUnwatchedAndIsResetForItsNextWorker(): void
    {
        $watchdog = new BlockingWatchdog(self::THRESHOLD, 1);
        $slot = $watchdog->claim();
        self::assertNotNull($slot);
        $cells = $watchdog->cells($slot);
        self::assertSame(BlockingWatchdog::UNWATCHED, $cells[BlockingWatchdog::TICKS]);
        $watchdog->watch($slot, (int) \getmypid());
        self::assertFalse($watchdog->poll(), 'nobody publishes yet');
        $cells[BlockingWatchdog::TICKS] = 8;
        self::assertTrue($watchdog->poll());
        $watchdog->forget((int) \getmypid());
        self::assertSame($slot, $watchdog->claim());
        self::assertSame(BlockingWatchdog::UNWATCHED, $watchdog->cells($slot)[BlockingWatchdog::TICKS], 'the old count is gone');
        self::assertFalse($watchdog->poll());
    }

    public function testALoopStuckInOneTickIsSignalledOncePerEpisode(): void
    {
        $watchdog = new BlockingWatchdog(self::THRESHOLD, 2);
        $slot = $watchdog->claim();
        self::assertNotNull($slot);
        $watchdog->watch($slot, (int) \getmypid());
        $cells = $watchdog->cells($slot);
        $cells[BlockingWatchdog::TICKS] = 6; // even: running callbacks
        $start = \hrtime(true);
        $this->pollUntil($watchdog, fn (): bool => $this->alarms() > 0);
        self::assertSame(1, $this->alarms);
        self::assertSame(6, $cells[BlockingWatchdog::SIGNALLED], 'the handler checks it is still that tick');
        self::assertGreaterThanOrEqual($start, $cells[BlockingWatchdog::SINCE]);
        self::assertGreaterThanOrEqual(self::THRESHOLD * 1e9, \hrtime(true) - $cells[BlockingWatchdog::SINCE], 'not before the threshold');

        $this->pollFor($watchdog, 5 * self::THRESHOLD);
        self::assertSame(1, $this->alarms, 'one signal per episode');

        $cells[BlockingWatchdog::TICKS] = 8; // the loop moved on, and blocks again
        $this->pollUntil($watchdog, fn (): bool => $this->alarms() > 1);
        self::assertSame(2, $this->alarms);
        self::assertSame(8, $cells[BlockingWatchdog::SIGNALLED]);
    }

    public function testAWaitingOrMovingOrUnpublishedLoopIsNeverSignalled(): void
    {
        $watchdog = new BlockingWatchdog(self::THRESHOLD, 1);
        $slot = $watchdog->claim();
        self::assertNotNull($slot);
        $watchdog->watch($slot, (int) \getmypid());
        $cells = $watchdog->cells($slot);
        $this->pollFor($watchdog, 5 * self::THRESHOLD); // unpublished
        $cells[BlockingWatchdog::TICKS] = 7; // odd: waiting for I/O
        $this->pollFor($watchdog, 5 * self::THRESHOLD);
        $deadline = \microtime(true) + 5 * self::THRESHOLD;
        for ($count = 8; \microtime(true) < $deadline; $count += 2) {
            $cells[BlockingWatchdog::TICKS] = $count; // ticking
            $watchdog->poll();
            \usleep(2000);
        }
        \pcntl_signal_dispatch();
        self::assertSame(0, $this->alarms);
    }

    /** The signals received so far (a method: the handler changes the count behind the analyser's back). */
    private function alarms(): int
    {
        return $this->alarms;
    }

    /** Polls every 2 ms until $done (after the signal's dispatch), for 10 s at most. */
    private function pollUntil(BlockingWatchdog $watchdog, \Closure $done): void
    {
        $deadline = \microtime(true) + 10;
        while (!$done()) {
            self::assertLessThan($deadline, \microtime(true), 'no signal within 10 s');
            $watchdog->poll();
            \usleep(2000);
            \pcntl_signal_dispatch();
        }
    }

    private function pollFor(BlockingWatchdog $watchdog, float $seconds): void
    {
        $deadline = \microtime(true) + $seconds;
        while (\microtime(true) < $deadline) {
            $watchdog->poll();
            \usleep(2000);
        }
        \pcntl_signal_dispatch();
    }
}
