<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Coroutine;

use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\Channel;
use Petrel\Coroutine\CoroutineError;
use Petrel\Coroutine\TimeoutException;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\go;
use function Petrel\parallel;
use function Petrel\sleep;
use function Petrel\timeout;

final class DeadlineTest extends AsyncTestCase
{
    public function testTimeoutInterruptsTheCallThatIsPending(): void
    {
        $this->async(function (): void {
            $start = \hrtime(true);
            try {
                timeout(0.02, static fn () => sleep(5));
                self::fail('expected timeout');
            } catch (TimeoutException $e) {
                self::assertStringContainsString('Timed out after 0.02 s', $e->getMessage());
            }
            self::assertLessThan(1.0, (\hrtime(true) - $start) / 1e9);
        });
    }

    public function testTimeoutReturnsTheResultWhenInTime(): void
    {
        self::assertSame('done', $this->async(static fn () => timeout(1, static function (): string {
            sleep(0.001);

            return 'done';
        })));
    }

    public function testExpiredDeadlineMakesEveryLaterSuspensionFail(): void
    {
        $this->async(function (): void {
            $failures = 0;
            timeout(0.01, static function () use (&$failures): void {
                for ($i = 0; $i < 3; $i++) {
                    try {
                        sleep(1);
                    } catch (TimeoutException) {
                        $failures++;
                    }
                }
            });
            self::assertSame(3, $failures);
            sleep(0.001); // outside the scope, suspending works again
        });
    }

    public function testInnerDeadlineExpiresFirst(): void
    {
        $this->async(function (): void {
            $result = timeout(1, static function (): string {
                try {
                    timeout(0.01, static fn () => sleep(1));
                } catch (TimeoutException) {
                    sleep(0.001); // the outer deadline still has time
                    return 'inner expired, outer fine';
                }

                return 'unexpected';
            });
            self::assertSame('inner expired, outer fine', $result);
        });
    }

    public function testOuterDeadlineExpiresThroughInnerScope(): void
    {
        $this->async(function (): void {
            $this->expectException(TimeoutException::class);
            $this->expectExceptionMessage('0.01');
            timeout(0.01, static fn () => timeout(5, static fn () => sleep(1)));
        });
    }

    public function testDeadlineReachesChannelWaits(): void
    {
        $this->async(function (): void {
            $channel = new Channel();
            $this->expectException(TimeoutException::class);
            timeout(0.01, static fn () => $channel->pop());
        });
    }

    public function testParallelReturnsResultsInOrderOfKeys(): void
    {
        $this->async(function (): void {
            $start = \hrtime(true);
            $results = parallel([
                'slow' => static function (): string {
                    sleep(0.03);

                    return 'a';
                },
                'fast' => static function (): string {
                    sleep(0.01);

                    return 'b';
                },
                'now' => static fn (): string => 'c',
            ]);
            self::assertSame(['slow' => 'a', 'fast' => 'b', 'now' => 'c'], $results);
            self::assertLessThan(0.055, (\hrtime(true) - $start) / 1e9, 'tasks run concurrently');
            self::assertSame([], parallel([]));
        });
    }

    public function testParallelFirstExceptionWinsAndCancelsTheRest(): void
    {
        $this->async(function (): void {
            $cancelled = [];
            $start = \hrtime(true);
            try {
                parallel([
                    static function () use (&$cancelled): void {
                        try {
                            sleep(5);
                        } catch (\Petrel\Coroutine\CancelledException) {
                            $cancelled[] = 'slow';
                        }
                    },
                    static function (): void {
                        sleep(0.02);
                        throw new \RuntimeException('second fails later');
                    },
                    static function (): void {
                        sleep(0.005);
                        throw new \RuntimeException('third fails first');
                    },
                ]);
                self::fail('expected exception');
            } catch (\RuntimeException $e) {
                self::assertSame('third fails first', $e->getMessage());
            }
            self::assertSame(['slow'], $cancelled);
            self::assertLessThan(1.0, (\hrtime(true) - $start) / 1e9);
        });
    }

    public function testParallelInsideATimeoutCancelsChildren(): void
    {
        $this->async(function (): void {
            $co = go(static fn () => timeout(0.01, static fn () => parallel([
                static fn () => sleep(5),
                static fn () => sleep(5),
            ])));
            $this->expectException(TimeoutException::class);
            $co->join();
        });
    }

    /** A caller cancelled or past its deadline got parallel()'s exception before its tasks had unwound. */
    public function testParallelWaitsForItsTasksWhenTheCallerIsCancelledOrTimesOut(): void
    {
        $this->async(function (): void {
            $log = [];
            $task = static function () use (&$log): void {
                try {
                    sleep(5);
                } finally {
                    $log[] = 'task unwound'; // runs once the loop resumes it with the cancellation
                }
            };
            try {
                timeout(0.01, static fn () => parallel([$task, $task]));
                self::fail('expected a timeout');
            } catch (TimeoutException) {
                $log[] = 'parallel returned';
            }
            self::assertSame(['task unwound', 'task unwound', 'parallel returned'], $log);

            $log = [];
            $caller = go(static function () use ($task, &$log): void {
                try {
                    parallel([$task]);
                } finally {
                    $log[] = 'parallel returned';
                }
            });
            sleep(0.01);
            $caller->cancel();
            try {
                $caller->join();
                self::fail('expected the cancellation');
            } catch (CancelledException) {
            }
            self::assertSame(['task unwound', 'parallel returned'], $log);
        });
    }

    /** NaN never comes due: it spun the loop at 100 % CPU and stopped every timer behind it. */
    public function testANanTimeoutIsRefused(): void
    {
        $this->async(function (): void {
            $channel = new Channel();
            foreach ([
                'sleep()' => static fn () => sleep(\NAN),
                'A timeout()' => static fn () => timeout(\NAN, static fn () => null),
                'A timeout' => static fn () => $channel->pop(\NAN),
            ] as $what => $call) {
                try {
                    $call();
                    self::fail("{$what}: expected a CoroutineError");
                } catch (CoroutineError $error) {
                    self::assertSame("{$what} must be a number of seconds, got NAN", $error->getMessage());
                }
            }
            $start = \hrtime(true);
            sleep(0.01); // the loop's timers still fire
            self::assertLessThan(1.0, (\hrtime(true) - $start) / 1e9);
        });
    }
}
