<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Coroutine;

use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\TimeoutException;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\go;
use function Petrel\sleep;
use function Petrel\timeout;

/**
 * What becomes of an exception that ends a coroutine nobody joins: a failure is reported,
 * but the coroutine's own cancellation is what its canceller asked for (a background loop
 * stopped with cancel() and let go), so it is not — neither for a go() coroutine nor for a
 * callAsChild() child cancelled with its caller.
 */
final class CancellationReportTest extends AsyncTestCase
{
    public function testACoroutineEndedByItsOwnCancellationIsNotReported(): void
    {
        $this->async(function (): void {
            $background = go(static fn () => sleep(10));
            $background->cancel();
            sleep(0.001);
            self::assertTrue($background->isFinished());
            unset($background);
            \gc_collect_cycles();
            self::assertSame([], $this->uncaught);
        });
    }

    public function testAChildCancelledWithItsCallerIsNotReported(): void
    {
        $this->async(function (): void {
            $caller = go(static function (): string {
                try {
                    Scheduler::get()->callAsChild(static fn () => sleep(10));
                } catch (CancelledException $e) {
                    return $e->getMessage();
                }

                return 'not cancelled';
            });
            sleep(0.001);
            $caller->cancel(new CancelledException('stop'));
            self::assertSame('stop', $caller->join());
            \gc_collect_cycles();
            self::assertSame([], $this->uncaught);
        });
    }

    public function testJoinStillRethrowsTheCancellation(): void
    {
        $this->async(function (): void {
            $coroutine = go(static fn () => sleep(10));
            $coroutine->cancel(new CancelledException('asked to stop'));
            try {
                $coroutine->join();
                self::fail('join() must rethrow the cancellation');
            } catch (CancelledException $e) {
                self::assertSame('asked to stop', $e->getMessage());
            }
        });
    }

    public function testOtherExceptionsEndingACancelledCoroutineAreStillReported(): void
    {
        $this->async(function (): void {
            $cleanup = go(static function (): void {
                try {
                    sleep(10);
                } catch (CancelledException) {
                    throw new \RuntimeException('cleanup failed');
                }
            });
            $deadline = go(static fn () => timeout(0.001, static fn () => sleep(10)));
            $cleanup->cancel();
            sleep(0.01);
            unset($cleanup, $deadline);
            \gc_collect_cycles();
            self::assertCount(2, $this->uncaught, \implode("\n", $this->uncaught));
            $reports = \implode("\n", $this->uncaught);
            self::assertStringContainsString('RuntimeException: cleanup failed', $reports);
            self::assertStringContainsString(TimeoutException::class, $reports);
            $this->uncaught = []; // seen: not a leak
        });
    }
}
