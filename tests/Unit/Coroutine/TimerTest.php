<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Coroutine;

use Petrel\Coroutine\CoroutineError;
use Petrel\Coroutine\Timer;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\after;
use function Petrel\every;
use function Petrel\go;
use function Petrel\sleep;
use function Petrel\timeout;

final class TimerTest extends AsyncTestCase
{
    public function testEveryRunsEachTickInACoroutineThatMaySuspend(): void
    {
        $this->async(function (): void {
            $log = [];
            $timer = every(0.01, function (Timer $timer) use (&$log): void {
                $n = $timer->runs();
                $log[] = "start {$n}";
                sleep(0.001); // a tick may suspend: it is a coroutine
                $log[] = "end {$n}";
            });
            while ($timer->runs() < 3) {
                sleep(0.005);
            }
            $timer->cancel();
            while ($timer->isRunning()) {
                sleep(0.001);
            }
            self::assertFalse($timer->isActive());
            self::assertSame(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3'], \array_slice($log, 0, 6));
        });
    }

    public function testASlowTickIsNeverOverlappedByTheNextOne(): void
    {
        $this->async(function (): void {
            $concurrent = 0;
            $most = 0;
            $timer = every(0.005, function () use (&$concurrent, &$most): void {
                $most = \max($most, ++$concurrent);
                sleep(0.03); // six intervals long
                --$concurrent;
            });
            sleep(0.1);
            $timer->cancel();
            while ($timer->isRunning()) {
                sleep(0.005);
            }
            self::assertSame(1, $most, 'two ticks ran at once');
            self::assertGreaterThan(0, $timer->skipped());
            self::assertGreaterThanOrEqual(2, $timer->runs());
        });
    }

    public function testAfterRunsOnceAndCanBeCancelledBeforeItFires(): void
    {
        $this->async(function (): void {
            $fired = [];
            $once = after(0.01, function () use (&$fired): void {
                $fired[] = 'once';
            });
            $never = after(0.01, function () use (&$fired): void {
                $fired[] = 'never';
            });
            $never->cancel();
            self::assertTrue($once->isActive());
            sleep(0.05);
            self::assertSame(['once'], $fired);
            self::assertFalse($once->isActive(), 'a one-shot timer is done once it has fired');
            self::assertSame(1, $once->runs());
            $once->cancel(); // harmless after firing
        });
    }

    public function testAnExceptionIsReportedWithWhereTheTimerWasMadeAndTheTimerGoesOn(): void
    {
        $this->async(function (): void {
            $timer = every(0.005, static function (Timer $timer): void {
                throw new \RuntimeException("tick {$timer->runs()} failed");
            });
            while ($timer->runs() < 2) {
                sleep(0.005);
            }
            $timer->cancel();
            self::assertGreaterThanOrEqual(2, \count($this->uncaught));
            self::assertStringContainsString('timer every 0.005s, TimerTest.php:', $this->uncaught[0]);
            self::assertStringContainsString('tick 1 failed', $this->uncaught[0]);
            $this->uncaught = []; // seen: not a leak
        });
    }

    /** A TimeoutException is a CancelledException: one escaping a tick was taken for the tick's own cancellation. */
    public function testATimeoutOrAnotherCoroutinesCancellationEscapingATickIsReported(): void
    {
        $this->async(function (): void {
            after(0.001, static fn () => timeout(0.005, static fn () => sleep(1)));
            after(0.001, static function (): void {
                $helper = go(static fn () => sleep(1));
                $helper->cancel();
                $helper->join();
            });
            sleep(0.05);
            self::assertCount(2, $this->uncaught, \implode("\n", $this->uncaught));
            $reports = \implode("\n", $this->uncaught);
            self::assertStringContainsString('TimeoutException: Timed out after 0.005 s', $reports);
            self::assertStringContainsString('CancelledException: Coroutine #', $reports);
            $this->uncaught = []; // seen: not a leak
        });
    }

    public function testAnUnreferencedTimerDoesNotKeepTheLoopAlive(): void
    {
        $this->async(function (): void {
            $timer = every(10.0, static fn () => null)->unreference();
            self::assertTrue($timer->isActive());
            // async() fails the test if a referenced enabled watcher is left behind.
        });
    }

    /**
     * A worker's stop: repeating timers start no tick while the requests drain; the ticks
     * running finish (finishTicks() waits for them), or are cancelled once the time is up.
     * They used to start ticks during the drain, cut when the worker exited.
     */
    public function testAStopEndsRepeatingTimersAndLetsRunningTicksFinish(): void
    {
        $this->async(function (): void {
            $scheduler = \Petrel\Coroutine\Scheduler::get();
            $log = [];
            $slow = every(0.01, static function (Timer $timer) use (&$log): void {
                $log[] = "slow start {$timer->runs()}";
                sleep(0.05);
                $log[] = "slow end {$timer->runs()}";
            });
            $stuck = every(0.01, static function () use (&$log): void {
                try {
                    sleep(10);
                } finally {
                    $log[] = 'stuck finally';
                }
            });
            $once = after(0.03, static function () use (&$log): void {
                $log[] = 'once';
            });
            sleep(0.015); // both repeating timers have a tick running
            self::assertCount(2, Timer::stopAll($scheduler));
            self::assertFalse($slow->isActive());
            self::assertFalse($stuck->isActive());
            self::assertTrue($once->isActive(), 'a one-shot timer still fires when due');
            Timer::finishTicks($scheduler, 0.2);
            self::assertSame(['slow start 1', 'once', 'slow end 1', 'stuck finally'], $log);
            self::assertFalse($slow->isRunning());
            self::assertFalse($stuck->isRunning());
            self::assertSame([], Timer::stopAll($scheduler));
        });
    }

    public function testAnIntervalMustBePositive(): void
    {
        $this->expectException(CoroutineError::class);
        $this->expectExceptionMessage('A timer interval must be > 0, got 0.0');
        every(0.0, static fn () => null);
    }
}
