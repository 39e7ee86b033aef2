<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Coroutine;

use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\Context;
use Petrel\Coroutine\DeadlockError;
use Petrel\Coroutine\Scheduler;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\defer;
use function Petrel\go;
use function Petrel\run;
use function Petrel\sleep;

/** Scheduler::callAsChild(): go()->join() semantics on the caller's fiber. */
final class CallAsChildTest extends AsyncTestCase
{
    public function testTheChildIsACoroutineOfItsOwnWithAContextCopyAndDefers(): void
    {
        $this->async(function (): void {
            $scheduler = Scheduler::get();
            $parent = $scheduler->current();
            Context::set('user', 'parent');
            $log = [];
            $result = $scheduler->callAsChild(static function (string $suffix) use ($scheduler, $parent, &$log): string {
                $child = $scheduler->current();
                self::assertNotNull($child);
                self::assertNotSame($parent, $child);
                $log[] = 'inherits ' . Context::get('user');
                Context::set('user', 'child');
                defer(static function () use (&$log): void {
                    $log[] = 'deferred';
                });
                $log[] = 'returns';

                return 'done' . $suffix;
            }, ['!']);
            self::assertSame('done!', $result);
            self::assertSame(['inherits parent', 'returns', 'deferred'], $log);
            self::assertSame('parent', Context::get('user'));
            self::assertSame($parent, $scheduler->current());
        });
    }

    public function testTheChildMaySuspendWhileOthersRun(): void
    {
        $this->async(function (): void {
            $scheduler = Scheduler::get();
            $parent = $scheduler->current();
            $log = [];
            $other = go(static function () use (&$log): void {
                sleep(0.001);
                $log[] = 'other';
            });
            $result = $scheduler->callAsChild(static function () use (&$log): int {
                sleep(0.005);
                $log[] = 'child';

                return 42;
            });
            $other->join();
            self::assertSame(42, $result);
            self::assertSame(['other', 'child'], $log);
            self::assertSame($parent, $scheduler->current());
        });
    }

    public function testTheChildsExceptionIsRethrownAfterItsDefers(): void
    {
        $this->async(function (): void {
            $log = [];
            try {
                Scheduler::get()->callAsChild(static function () use (&$log): void {
                    defer(static function () use (&$log): void {
                        $log[] = 'deferred';
                    });
                    sleep(0.001);
                    throw new \DomainException('inner');
                });
                self::fail('expected the exception');
            } catch (\DomainException $e) {
                self::assertSame('inner', $e->getMessage());
            }
            self::assertSame(['deferred'], $log);
        });
    }

    public function testCancellingTheCallerCancelsTheChild(): void
    {
        $this->async(function (): void {
            $log = [];
            $caller = go(static function () use (&$log): void {
                try {
                    Scheduler::get()->callAsChild(static function () use (&$log): void {
                        try {
                            sleep(10);
                        } catch (CancelledException $e) {
                            $log[] = 'child: ' . $e->getMessage();
                        }
                    });
                } catch (CancelledException $e) {
                    $log[] = 'caller: ' . $e->getMessage();
                }
            });
            sleep(0.001);
            $caller->cancel(new CancelledException('stop'));
            $caller->join();
            self::assertSame(['child: stop', 'caller: stop'], $log);
        });
    }

    public function testWorksFromTheMainContext(): void
    {
        $result = Scheduler::get()->callAsChild(static function (): string {
            sleep(0.001);

            return 'main child';
        });
        self::assertSame('main child', $result);
        self::assertNull(Scheduler::get()->current());
    }

    public function testRunningChildrenAreListedWithEveryCoroutineInIdOrder(): void
    {
        $this->async(function (): void {
            $scheduler = Scheduler::get();
            $caller = $scheduler->current();
            self::assertNotNull($caller);
            $seen = $scheduler->callAsChild(static fn (): array => $scheduler->callAsChild(static function () use ($scheduler): array {
                $other = go(static fn () => sleep(0.001));
                $ids = \array_keys($scheduler->coroutines());
                $other->join();

                return [$ids, $scheduler->current()?->id, $scheduler->stats()['alive']];
            }));
            [$ids, $grandchild, $alive] = $seen;
            self::assertContains($caller->id, $ids);
            self::assertContains($grandchild, $ids, 'a child, and its child: found through their parents');
            self::assertContains($grandchild - 1, $ids);
            self::assertSame(\array_values(\array_unique($ids)), $ids);
            $sorted = $ids;
            \sort($sorted);
            self::assertSame($sorted, $ids, 'by id');
            self::assertSame(\count($ids) - 1, $alive, 'stats() counts them too (the joined coroutine has finished)');
            self::assertNotContains($grandchild, \array_keys($scheduler->coroutines()), 'gone once finished');
        });
    }

    public function testTheDeadlockReportShowsTheCallerWaitingForItsChild(): void
    {
        $channel = new \Petrel\Coroutine\Channel();
        try {
            run(static function () use ($channel): void {
                Scheduler::get()->callAsChild(static fn () => $channel->pop());
            });
            self::fail('expected a deadlock error');
        } catch (DeadlockError $e) {
            self::assertMatchesRegularExpression('/#\d+ +waiting for its child #\d+/', $e->getMessage());
            self::assertMatchesRegularExpression('/#\d+ +waiting in .*Channel->pop\(\)/', $e->getMessage());
        }
        Scheduler::reset();
    }
}
