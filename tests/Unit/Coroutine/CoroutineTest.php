<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Coroutine;

use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\Coroutine;
use Petrel\Coroutine\Context;
use Petrel\Coroutine\CoroutineError;
use Petrel\Coroutine\DeadlockError;
use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\TimeoutException;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\defer;
use function Petrel\go;
use function Petrel\run;
use function Petrel\sleep;

final class CoroutineTest extends AsyncTestCase
{
    public function testSpawnRunsAtOnceUntilFirstSuspension(): void
    {
        $this->async(function (): void {
            $log = [];
            $co = go(function () use (&$log): string {
                $log[] = 'start';
                sleep(0.001);
                $log[] = 'end';

                return 'result';
            });
            $log[] = 'after go';
            self::assertSame('result', $co->join());
            self::assertSame(['start', 'after go', 'end'], $log);
            self::assertTrue($co->isFinished());
        });
    }

    public function testArgumentsArePassed(): void
    {
        self::assertSame(5, $this->async(static fn () => go(static fn (int $a, int $b): int => $a + $b, 2, 3)->join()));
    }

    public function testJoinRethrowsTheCoroutinesException(): void
    {
        $this->async(function (): void {
            $co = go(static function (): void {
                sleep(0.001);
                throw new \DomainException('inner');
            });
            try {
                $co->join();
                self::fail('expected exception');
            } catch (\DomainException $e) {
                self::assertSame('inner', $e->getMessage());
            }
        });
    }

    public function testJoinWithTimeoutLeavesCoroutineRunning(): void
    {
        $this->async(function (): void {
            $co = go(static fn () => sleep(0.05));
            try {
                $co->join(0.001);
                self::fail('expected timeout');
            } catch (TimeoutException) {
            }
            self::assertFalse($co->isFinished());
            $co->join();
        });
    }

    public function testJoiningItselfIsAnError(): void
    {
        $this->async(function (): void {
            $this->expectException(CoroutineError::class);
            go(static function (): void {
                $self = Scheduler::get()->current();
                self::assertNotNull($self);
                $self->join();
            })->join();
        });
    }

    public function testUncaughtExceptionIsReportedAndDoesNotKillTheProcess(): void
    {
        $reported = [];
        Scheduler::get()->setErrorHandler(static function (\Throwable $e, string $where) use (&$reported): void {
            $reported[] = $e->getMessage();
        });
        run(static function (): void {
            go(static function (): void {
                throw new \RuntimeException('nobody joins me');
            });
            sleep(0.001);
        });
        self::assertSame(['nobody joins me'], $reported);
    }

    public function testDefersRunLastInFirstOutAlsoOnException(): void
    {
        $this->async(function (): void {
            $log = [];
            $co = go(static function () use (&$log): void {
                defer(static function () use (&$log): void {
                    $log[] = 'first registered';
                });
                defer(static function () use (&$log): void {
                    $log[] = 'second registered';
                });
                sleep(0.001);
                throw new \LogicException('fail');
            });
            try {
                $co->join();
            } catch (\LogicException) {
            }
            self::assertSame(['second registered', 'first registered'], $log);
        });
    }

    public function testDeferredCallbacksAreCalledWithNoArgumentAndInternalOnesWithTheCoroutine(): void
    {
        $this->async(function (): void {
            $log = [];
            $level = \ob_get_level();
            $co = go(static function () use (&$log): void {
                \ob_start();
                // A built-in function taking no argument throws on one, and an optional
                // parameter would take it: defer() calls its callback with none.
                defer(\ob_end_clean(...));
                defer(static function (mixed ...$args) use (&$log): void {
                    $log[] = \count($args) . ' arguments';
                });
                // What the pool's lease does (CoroutineLeases): execute() passes the coroutine.
                Scheduler::running()->defers[] = static function (Coroutine $coroutine) use (&$log): void {
                    $log[] = "coroutine #{$coroutine->id}";
                };
            });
            $co->join();
            self::assertSame(["coroutine #{$co->id}", '0 arguments'], $log);
            self::assertSame($level, \ob_get_level());
        });
    }

    public function testExceptionInDeferBecomesTheResultAndOthersStillRun(): void
    {
        $this->async(function (): void {
            $ran = false;
            $co = go(static function () use (&$ran): string {
                defer(static function () use (&$ran): void {
                    $ran = true;
                });
                defer(static function (): void {
                    throw new \RuntimeException('in defer');
                });

                return 'ok';
            });
            try {
                $co->join();
                self::fail('expected the defer exception');
            } catch (\RuntimeException $e) {
                self::assertSame('in defer', $e->getMessage());
            }
            self::assertTrue($ran);
        });
    }

    public function testSecondExceptionInDeferIsReported(): void
    {
        $this->async(function (): void {
            $co = go(static function (): void {
                defer(static function (): void {
                    throw new \RuntimeException('defer failure');
                });
                throw new \LogicException('body failure');
            });
            try {
                $co->join();
            } catch (\LogicException) {
            }
            self::assertCount(1, $this->uncaught);
            self::assertStringContainsString('defer failure', $this->uncaught[0]);
            $this->uncaught = [];
        });
    }

    public function testDeferOutsideCoroutineIsAnError(): void
    {
        $this->expectException(CoroutineError::class);
        defer(static function (): void {
        });
    }

    public function testCancelThrowsAtTheSuspensionPointAndIsSticky(): void
    {
        $this->async(function (): void {
            $log = [];
            $co = go(static function () use (&$log): void {
                try {
                    sleep(10);
                } catch (CancelledException $e) {
                    $log[] = $e->getMessage();
                }
                try {
                    sleep(0.001);
                } catch (CancelledException) {
                    $log[] = 'still cancelled';
                }
            });
            $co->cancel();
            $co->join();
            self::assertSame(['Coroutine #' . $co->id . ' was cancelled', 'still cancelled'], $log);
        });
    }

    public function testContextIsPerCoroutineAndInheritedAsACopy(): void
    {
        $this->async(function (): void {
            Context::set('request', 'parent');
            $seen = [];
            $a = go(static function () use (&$seen): void {
                $seen[] = Context::get('request');
                Context::set('request', 'child a');
                sleep(0.001);
                $seen[] = Context::get('request');
            });
            $b = go(static function () use (&$seen): void {
                Context::set('request', 'child b');
                sleep(0.002);
                $seen[] = Context::get('request');
            });
            $a->join();
            $b->join();
            self::assertSame(['parent', 'child a', 'child b'], $seen);
            self::assertSame('parent', Context::get('request'));
            self::assertNull(Context::get('missing'));
            self::assertSame('default', Context::get('missing', 'default'));
        });
    }

    public function testContextReplaceReturnsThePreviousValueOfTheRunningCoroutine(): void
    {
        $this->async(function (): void {
            self::assertSame('none', Context::replace('scope', 'outer', 'none'));
            $child = go(static function (): array {
                $seen = [Context::replace('scope', 'inner')];
                sleep(0.001);
                $seen[] = Context::replace('scope', null);
                $seen[] = Context::replace('scope', 'again', 'default'); // null is a value

                return $seen;
            });
            self::assertSame('outer', Context::replace('scope', 'outer 2'));
            self::assertSame(['outer', 'inner', null], $child->join());
            self::assertSame('outer 2', Context::get('scope'));
        });
    }

    public function testFibersAreReused(): void
    {
        $this->async(function (): void {
            $before = Scheduler::get()->stats()['idleFibers'];
            for ($i = 0; $i < 100; $i++) {
                go(static function (): void {
                })->join();
            }
            $stats = Scheduler::get()->stats();
            self::assertLessThanOrEqual($before + 1, $stats['idleFibers']);
            $cos = [];
            for ($i = 0; $i < 50; $i++) {
                $cos[] = go(static fn () => sleep(0.001));
            }
            foreach ($cos as $co) {
                $co->join();
            }
            self::assertGreaterThanOrEqual(50, Scheduler::get()->stats()['idleFibers']);
        });
    }

    public function testMainContextCanSuspendWithoutACoroutine(): void
    {
        $start = \hrtime(true);
        sleep(0.01);
        self::assertGreaterThanOrEqual(0.009, (\hrtime(true) - $start) / 1e9);
        $co = go(static function (): int {
            sleep(0.001);

            return 7;
        });
        self::assertSame(7, $co->join());
    }

    public function testDeadlockReportNamesEachSuspendedCoroutineAndItsLine(): void
    {
        $channel = new \Petrel\Coroutine\Channel();
        try {
            run(static function () use ($channel): void {
                go(static fn () => $channel->pop()); $line = __LINE__;
                $channel->pop();
            });
            self::fail('expected a deadlock error');
        } catch (DeadlockError $e) {
            $message = $e->getMessage();
            self::assertStringContainsString('Everything is suspended', $message);
            self::assertStringContainsString('main  waiting in Petrel\run() at ' . __FILE__, $message);
            self::assertMatchesRegularExpression('/#\d+ +waiting in Petrel\\\\Coroutine\\\\Channel->pop\(\) at ' . \preg_quote(__FILE__, '/') . ':\d+/', $message);
            self::assertSame(3, \substr_count($message, 'waiting in'));
        }
        Scheduler::reset();
    }

    public function testSuspendingInsideALoopCallbackIsAnError(): void
    {
        $driver = Scheduler::get()->driver;
        $error = null;
        $driver->defer(static function () use (&$error): void {
            try {
                sleep(0.001);
            } catch (CoroutineError $e) {
                $error = $e;
            }
        });
        $driver->run();
        self::assertInstanceOf(CoroutineError::class, $error);
    }

    /**
     * An error handler that throws — or suspends, in the loop callback where an unjoined
     * coroutine's failure is found — lost the report without a word.
     */
    public function testAFailingErrorHandlerDoesNotLoseTheReport(): void
    {
        $autoload = \var_export(\dirname(__DIR__, 3) . '/vendor/autoload.php', true);
        $script = <<<PHP
            require {$autoload};
            \\Petrel\\run(static function (): void {
                \\Petrel\\Coroutine\\Scheduler::get()->setErrorHandler(static fn () => \\Petrel\\sleep(0.001));
                \\Petrel\\go(static function (): void {
                    \\Petrel\\sleep(0.001);
                    throw new \\LogicException('the failure to report');
                });
                \\Petrel\\sleep(0.02);
            });
            PHP;
        $process = \proc_open([\PHP_BINARY, '-r', $script], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);
        $stdout = (string) \stream_get_contents($pipes[1]);
        $stderr = (string) \stream_get_contents($pipes[2]);
        self::assertSame(0, \proc_close($process), $stdout . $stderr);
        self::assertMatchesRegularExpression(
            '/^Petrel: uncaught exception in coroutine #\d+ \(the error handler failed: Petrel\\\\Coroutine\\\\CoroutineError: Cannot suspend inside an event loop callback.*?\): LogicException: the failure to report/',
            $stderr,
        );
    }
}
