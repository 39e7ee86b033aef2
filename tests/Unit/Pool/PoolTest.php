<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Pool;

use Petrel\Pool\Pool;
use Petrel\Pool\PoolConfig;
use Petrel\Pool\PoolException;
use Petrel\Pool\PoolExhaustedException;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\go;
use function Petrel\sleep;

final class PoolTest extends AsyncTestCase
{
    private int $opened = 0;
    /** @var list<\stdClass> */
    private array $closed = [];

    /** @return Pool<\stdClass> */
    private function pool(PoolConfig $config = new PoolConfig(max: 2), ?\Closure $healthCheck = null, bool $checkOnCheckout = true): Pool
    {
        return new Pool(
            'test',
            function (): \stdClass {
                $connection = new \stdClass();
                $connection->id = ++$this->opened;
                $connection->usable = true;
                $connection->users = 0;

                return $connection;
            },
            $config,
            isUsable: static fn (\stdClass $c): bool => $c->usable,
            healthCheck: $healthCheck,
            close: function (\stdClass $c): void {
                $this->closed[] = $c;
            },
            checkOnCheckout: $checkOnCheckout,
        );
    }

    public function testAConnectionThatBrokeWhileIdleIsReplacedOnCheckout(): void
    {
        $this->async(function (): void {
            $pool = $this->pool();
            $a = $pool->acquire();
            $pool->release($a);
            $a->usable = false; // e.g. its server closed it

            $b = $pool->acquire();
            self::assertNotSame($a, $b);
            self::assertSame([$a], $this->closed);
        });
    }

    public function testWithoutTheCheckOnCheckoutUsabilityIsAskedOnReturnOnly(): void
    {
        $this->async(function (): void {
            $pool = $this->pool(checkOnCheckout: false);
            $a = $pool->acquire();
            $pool->release($a);
            $a->usable = false; // cannot happen to such a connection: proves it is not asked

            self::assertSame($a, $pool->acquire());
            $pool->release($a); // asked on return: closed
            self::assertSame([$a], $this->closed);
            self::assertNotSame($a, $pool->acquire());
        });
    }

    public function testReusesReleasedConnections(): void
    {
        $this->async(function (): void {
            $pool = $this->pool();
            $a = $pool->acquire();
            $pool->release($a);
            self::assertSame($a, $pool->acquire());
            self::assertSame(1, $this->opened);
        });
    }

    public function testNeverMoreThanMaxAndWaitersAreServedInOrder(): void
    {
        $this->async(function (): void {
            $pool = $this->pool(new PoolConfig(max: 2));
            $busy = 0;
            $peak = 0;
            $order = [];
            $workers = [];
            for ($i = 0; $i < 6; $i++) {
                $workers[] = go(static function () use ($pool, &$busy, &$peak, &$order, $i): void {
                    $pool->use(static function (\stdClass $c) use (&$busy, &$peak, &$order, $i): void {
                        $c->users++;
                        self::assertSame(1, $c->users, 'exclusive: one user at a time');
                        $busy++;
                        $peak = \max($peak, $busy);
                        $order[] = $i;
                        sleep(0.005);
                        $busy--;
                        $c->users--;
                    });
                });
            }
            foreach ($workers as $worker) {
                $worker->join();
            }
            self::assertSame(2, $peak);
            self::assertSame([0, 1, 2, 3, 4, 5], $order);
            self::assertSame(2, $this->opened);
            self::assertSame(['name' => 'test', 'size' => 2, 'idle' => 2, 'busy' => 0, 'waiting' => 0, 'max' => 2, 'timeouts' => 0], $pool->stats());
        });
    }

    public function testExhaustedPoolGivesAClearError(): void
    {
        $this->async(function (): void {
            $pool = $this->pool(new PoolConfig(max: 1, acquireTimeout: 0.02));
            $held = $pool->acquire();
            try {
                $pool->acquire();
                self::fail('expected PoolExhaustedException');
            } catch (PoolExhaustedException $e) {
                self::assertStringContainsString('Pool "test" is exhausted: all 1 connections stayed in use for 0.02 s', $e->getMessage());
            }
            self::assertSame(1, $pool->stats()['timeouts'], 'counted for the metrics');
            self::assertSame(1, \Petrel\Pool\PoolRegistry::stats()['test']['timeouts'] ?? null, 'the registry sees the pool');
            $pool->release($held);
        });
    }

    /** A NaN or negative timeout is refused where it is given, not as a LoopError at the wait. */
    public function testAcquireRefusesATimeoutThatIsNoNumberOfSeconds(): void
    {
        $this->async(function (): void {
            $pool = $this->pool(new PoolConfig(max: 1));
            $held = $pool->acquire();
            foreach ([\NAN, -1.0] as $timeout) {
                try {
                    $pool->acquire($timeout);
                    self::fail("acquire({$timeout}) accepted");
                } catch (\InvalidArgumentException $e) {
                    self::assertStringContainsString('acquire() takes a timeout of zero or more seconds', $e->getMessage());
                }
            }
            $pool->release($held);
            self::assertSame($held, $pool->acquire(\INF), 'INF waits as long as it takes');
            $pool->release($held);
        });
    }

    public function testLeaseIsPerCoroutineAndReturnedWhenItEndsEvenIfForgotten(): void
    {
        $this->async(function (): void {
            $pool = $this->pool(new PoolConfig(max: 2));
            $a = go(static function () use ($pool): array {
                $first = $pool->lease();
                sleep(0.005);

                return [$first, $pool->lease()];
            });
            $b = go(static fn () => $pool->lease());
            [$first, $second] = $a->join();
            self::assertSame($first, $second, 'same connection within one coroutine');
            self::assertNotSame($first, $b->join(), 'different coroutines never share one');
            self::assertSame(2, $pool->stats()['idle'], 'both went back when their coroutines ended');
        });
    }

    public function testLeaseGoesBackWhenTheCoroutineThrowsOrWaitedForIt(): void
    {
        $this->async(function (): void {
            $pool = $this->pool(new PoolConfig(max: 1));
            $failed = go(static function () use ($pool): void {
                $pool->lease();
                sleep(0.005);
                throw new \RuntimeException('request failed');
            });
            $waited = go(static fn () => $pool->lease()); // waits for the one connection
            try {
                $failed->join();
                self::fail('the error should reach join()');
            } catch (\RuntimeException) {
            }
            $connection = $waited->join();
            self::assertSame(1, $this->opened, 'the failed coroutine\'s connection was handed over');
            self::assertSame(['name' => 'test', 'size' => 1, 'idle' => 1, 'busy' => 0, 'waiting' => 0, 'max' => 1, 'timeouts' => 0], $pool->stats());
            self::assertSame($connection, go(static fn () => $pool->lease())->join());
        });
    }

    public function testALeaseReleasedEarlyCanBeTakenAgainAndGoesBackOnce(): void
    {
        $this->async(function (): void {
            $pool = $this->pool(new PoolConfig(max: 1));
            go(static function () use ($pool): void {
                $first = $pool->lease();
                $pool->releaseLease();
                self::assertSame(1, $pool->stats()['idle']);
                self::assertSame($first, $pool->lease(), 'the idle connection again');
                self::assertSame(0, $pool->stats()['idle']);
            })->join();
            self::assertSame(1, $pool->stats()['idle']);
            self::assertSame(1, $pool->stats()['size']);
        });
    }

    public function testAChildCoroutineGetsItsOwnLease(): void
    {
        $this->async(function (): void {
            $pool = $this->pool(new PoolConfig(max: 2));
            go(static function () use ($pool): void {
                $parent = $pool->lease();
                $child = go(static fn () => $pool->lease())->join();
                self::assertNotSame($parent, $child);
            })->join();
        });
    }

    public function testUnusableConnectionIsClosedNotReused(): void
    {
        $this->async(function (): void {
            $pool = $this->pool(new PoolConfig(max: 1));
            $a = $pool->acquire();
            $a->usable = false; // e.g. lost mid-query
            $pool->release($a);
            self::assertSame([$a], $this->closed);
            $b = $pool->acquire();
            self::assertNotSame($a, $b);
            $pool->release($b);
        });
    }

    public function testAWaiterGetsTheSlotOfADiscardedConnection(): void
    {
        $this->async(function (): void {
            $pool = $this->pool(new PoolConfig(max: 1));
            $a = $pool->acquire();
            $waiter = go(static fn () => $pool->acquire());
            $pool->discard($a);
            $b = $waiter->join();
            self::assertNotSame($a, $b);
            self::assertSame(2, $this->opened);
            $pool->release($b);
        });
    }

    public function testLongIdleConnectionsAreHealthCheckedAndReplacedIfDead(): void
    {
        $this->async(function (): void {
            $checks = 0;
            $pool = $this->pool(new PoolConfig(max: 2, healthCheckAfter: 0.01), static function (\stdClass $c) use (&$checks): bool {
                $checks++;

                return $c->id !== 1; // the first connection died while idle (server restart)
            });
            $first = $pool->acquire();
            $pool->release($first);
            self::assertSame($first, $pool->acquire(), 'recently used: no check');
            $pool->release($first);
            sleep(0.02);
            $next = $pool->acquire();
            self::assertSame(1, $checks);
            self::assertNotSame($first, $next, 'the dead one was replaced transparently');
            self::assertSame([$first], $this->closed);
            $pool->release($next);
        });
    }

    public function testWithoutTheCheckOnCheckoutALongIdleConnectionIsStillHealthChecked(): void
    {
        $this->async(function (): void {
            $checks = 0;
            $pool = $this->pool(new PoolConfig(max: 2, healthCheckAfter: 0.01), static function (\stdClass $c) use (&$checks): bool {
                $checks++;

                return $c->id !== 1;
            }, checkOnCheckout: false);
            $first = $pool->acquire();
            $pool->release($first);
            self::assertSame($first, $pool->acquire(), 'recently used: no check');
            self::assertSame(0, $checks);
            $pool->release($first);
            sleep(0.02);
            $next = $pool->acquire();
            self::assertSame(1, $checks, 'idle past healthCheckAfter: checked, though not asked isUsable');
            self::assertNotSame($first, $next);
            self::assertSame([$first], $this->closed);
            $pool->release($next);
        });
    }

    public function testWithoutTheCheckOnCheckoutAConnectionPastItsLifetimeWhileIdleIsReplaced(): void
    {
        $this->async(function (): void {
            $pool = $this->pool(new PoolConfig(max: 1, maxLifetime: 0.05), checkOnCheckout: false);
            $old = $pool->acquire();
            $pool->release($old); // young yet: kept
            self::assertSame([], $this->closed);
            sleep(0.06);
            self::assertNotSame($old, $pool->acquire(), 'too old when taken: replaced');
            self::assertSame([$old], $this->closed);
        });
    }

    public function testAnIdleLeaseGoesBackWhileItsCoroutineLivesAndALeaseInUseStays(): void
    {
        $this->async(function (): void {
            $pool = $this->pool(new PoolConfig(max: 2, leaseIdleTimeout: 0.05));
            $idle = go(function () use ($pool): array {
                $first = $pool->lease();
                $this->waitFor(static fn (): bool => $pool->stats()['idle'] === 1);

                return [$first, $pool->lease()]; // asks again: gets one (the same, idle in the pool)
            });
            $busy = go(function () use ($pool): int {
                $mine = $pool->lease();
                $mine->usable = false; // e.g. inside a transaction: never taken back
                sleep(0.3);
                $mine->usable = true;

                return $mine->id;
            });
            [$first, $again] = $idle->join();
            self::assertSame($first, $again);
            self::assertSame(2, $busy->join());
            self::assertSame([], $this->closed);
            self::assertSame(2, $this->opened);
        });
    }

    public function testAnIdleHeldConnectionIsClosedNotShared(): void
    {
        $this->async(function (): void {
            $pool = $this->pool(new PoolConfig(max: 1, leaseIdleTimeout: 0.05));
            $held = go(fn (): \stdClass => $this->holdUntilClosed($pool))->join();
            self::assertSame([$held], $this->closed);
            self::assertNotSame($held, $pool->acquire(), 'a new one: the holder may still use the old one');
        });
    }

    public function testDiscardLeaseClosesTheConnectionAndTheNextLeaseIsNew(): void
    {
        $this->async(function (): void {
            $pool = $this->pool();
            go(function () use ($pool): void {
                $first = $pool->lease();
                $pool->discardLease();
                self::assertSame([$first], $this->closed);
                self::assertNotSame($first, $pool->lease());
            })->join();
            self::assertSame(['name' => 'test', 'size' => 1, 'idle' => 1, 'busy' => 0, 'waiting' => 0, 'max' => 2, 'timeouts' => 0], $pool->stats());
        });
    }

    /** @param Pool<\stdClass> $pool */
    private function holdUntilClosed(Pool $pool): \stdClass
    {
        $held = $pool->hold();
        $this->waitFor(fn (): bool => \in_array($held, $this->closed, true));

        return $held;
    }

    /** Waits (bounded, generously) for $condition. */
    private function waitFor(\Closure $condition): void
    {
        $deadline = \microtime(true) + 10;
        while (!$condition()) {
            self::assertLessThan($deadline, \microtime(true), 'timed out waiting');
            sleep(0.01);
        }
    }

    public function testConnectFailureFreesTheSlot(): void
    {
        $this->async(function (): void {
            $attempts = 0;
            $pool = new Pool('flaky', static function () use (&$attempts): \stdClass {
                if (++$attempts === 1) {
                    throw new \RuntimeException('Connection refused');
                }

                return new \stdClass();
            }, new PoolConfig(max: 1));
            try {
                $pool->acquire();
                self::fail('expected the connect error');
            } catch (\RuntimeException $e) {
                self::assertSame('Connection refused', $e->getMessage());
            }
            $pool->release($pool->acquire());
            self::assertSame(1, $pool->stats()['size']);
        });
    }

    public function testCloseFailsWaitersAndClosesIdleConnections(): void
    {
        $this->async(function (): void {
            $pool = $this->pool(new PoolConfig(max: 1));
            $held = $pool->acquire();
            $waiter = go(static function () use ($pool): string {
                try {
                    $pool->acquire();
                } catch (PoolException $e) {
                    return $e->getMessage();
                }

                return 'no error';
            });
            $pool->close();
            self::assertStringContainsString('was closed while waiting', $waiter->join());
            $pool->release($held);
            self::assertSame([$held], $this->closed, 'returned after close: closed');
        });
    }

    public function testMaxLifetime(): void
    {
        $this->async(function (): void {
            $pool = $this->pool(new PoolConfig(max: 1, maxLifetime: 0.01));
            $old = $pool->acquire();
            sleep(0.02);
            $pool->release($old);
            self::assertSame([$old], $this->closed);
        });
    }

    public function testIdleConnectionsBeyondMinAreReaped(): void
    {
        $this->async(function (): void {
            $pool = $this->pool(new PoolConfig(max: 3, min: 1, idleTimeout: 0.5));
            $all = [$pool->acquire(), $pool->acquire(), $pool->acquire()];
            foreach ($all as $connection) {
                $pool->release($connection);
            }
            sleep(1.3);
            self::assertSame(1, $pool->stats()['size'], 'kept min, closed the rest');
            $pool->close();
        });
    }
}
