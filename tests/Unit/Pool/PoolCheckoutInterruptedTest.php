<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Pool;

use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\TimeoutException;
use Petrel\Pool\Pool;
use Petrel\Pool\PoolConfig;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\go;
use function Petrel\sleep;
use function Petrel\timeout;

/**
 * A checkout cut short by its caller's deadline or cancellation while it health-checks a
 * long-idle connection: that connection is closed (its round trip was cut mid-way), the
 * caller gets its own TimeoutException or CancelledException, and the other idle
 * connections stay in the pool — they are not checked, failed and closed one after the
 * other because the caller could no longer wait.
 */
final class PoolCheckoutInterruptedTest extends AsyncTestCase
{
    private int $checks = 0;
    /** @var list<int> ids of the connections closed */
    private array $closed = [];

    public function testADeadlineDuringAHealthCheckClosesOnlyTheConnectionBeingChecked(): void
    {
        $this->async(function (): void {
            $pool = $this->poolOfThreeLongIdleConnections();
            try {
                timeout(0.01, static fn () => $pool->acquire());
                self::fail('the deadline must cut the checkout short');
            } catch (TimeoutException $e) {
                self::assertSame('Timed out after 0.01 s', $e->getMessage());
            }
            $this->assertOnlyTheCheckedConnectionWasClosed($pool);
        });
    }

    public function testACancellationDuringAHealthCheckClosesOnlyTheConnectionBeingChecked(): void
    {
        $this->async(function (): void {
            $pool = $this->poolOfThreeLongIdleConnections();
            $borrower = go(static fn () => $pool->acquire());
            $borrower->cancel(new CancelledException('the client went away'));
            try {
                $borrower->join();
                self::fail('the cancellation must cut the checkout short');
            } catch (CancelledException $e) {
                self::assertSame('the client went away', $e->getMessage());
            }
            $this->assertOnlyTheCheckedConnectionWasClosed($pool);
        });
    }

    /** @return Pool<\stdClass> */
    private function poolOfThreeLongIdleConnections(): Pool
    {
        $opened = 0;
        $pool = new Pool(
            'test',
            static function () use (&$opened): \stdClass {
                $connection = new \stdClass();
                $connection->id = ++$opened;

                return $connection;
            },
            new PoolConfig(max: 3, healthCheckAfter: 0.001),
            healthCheck: function (): bool {
                ++$this->checks;
                sleep(10); // a round trip to a slow server, longer than the caller waits

                return true;
            },
            close: function (\stdClass $connection): void {
                $this->closed[] = $connection->id;
            },
        );
        $connections = [$pool->acquire(), $pool->acquire(), $pool->acquire()];
        foreach ($connections as $connection) {
            $pool->release($connection);
        }
        sleep(0.005); // idle long enough to be health-checked on checkout

        return $pool;
    }

    /** @param Pool<\stdClass> $pool */
    private function assertOnlyTheCheckedConnectionWasClosed(Pool $pool): void
    {
        self::assertSame(1, $this->checks, 'no other connection is checked for a caller that cannot wait');
        self::assertSame([3], $this->closed, 'the last one returned is checked first, and closed');
        $stats = $pool->stats();
        self::assertSame([2, 2, 0], [$stats['size'], $stats['idle'], $stats['busy']]);
        $pool->close();
        self::assertSame([3, 1, 2], $this->closed);
    }
}
