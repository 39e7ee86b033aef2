<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Redis;

use Petrel\Pool\PoolConfig;
use Petrel\Redis\Redis;
use Petrel\Redis\RedisConnection;
use Petrel\Redis\RedisConnectionException;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\sleep;

/**
 * Redis::connection() in a long-lived coroutine: a connection the server killed is
 * replaced when asked for again (unless keys were watched on it: that WATCH is lost, and
 * the error says so), and one left idle is closed instead of pinned.
 */
#[CoversClass(Redis::class)]
final class HeldConnectionTest extends RedisTestCase
{
    public function testAKilledConnectionIsReplacedWhenAskedForAgain(): void
    {
        $this->async(function (): void {
            $redis = new Redis(self::config());
            $admin = $this->connect();
            $held = $redis->connection();
            $id = $held->command('CLIENT', 'ID');
            self::assertSame(1, $admin->command('CLIENT', 'KILL', 'ID', $id));
            self::waitUntilClosed($held);

            $again = $redis->connection();
            self::assertNotSame($held, $again);
            self::assertSame('PONG', $again->ping());
            self::assertSame(1, $redis->pool()->stats()['size']);
            $redis->close();
        });
    }

    public function testAConnectionKilledWhileWatchingSaysTheWatchWasLost(): void
    {
        $this->async(function (): void {
            $redis = new Redis(self::config());
            $admin = $this->connect();
            $held = $redis->connection();
            $held->watch('counter');
            $admin->command('CLIENT', 'KILL', 'ID', $held->command('CLIENT', 'ID'));
            try { // the ping connection() makes finds it dead, watching or not
                $redis->connection();
                self::fail('a lost WATCH must not be replaced silently');
            } catch (RedisConnectionException $e) {
                self::assertStringContainsString('WATCH was lost', $e->getMessage());
            }
            self::assertFalse($redis->connection()->isWatching());
            $redis->close();
        });
    }

    public function testAnIdleHeldConnectionIsClosedNotPinned(): void
    {
        $this->async(function (): void {
            $redis = new Redis(self::config(), new PoolConfig(max: 1, leaseIdleTimeout: 0.2));
            $held = $redis->connection();
            $held->set('k', 'v');
            $deadline = \microtime(true) + 20;
            while ($redis->pool()->stats()['size'] !== 0) {
                self::assertLessThan($deadline, \microtime(true), 'the idle connection stayed pinned');
                sleep(0.05);
            }
            self::assertTrue($held->isClosed(), 'closed, so it can never be shared with its old holder');
            self::assertSame('v', $redis->get('k'), 'the slot is free again (max 1)');
            self::assertSame('v', $redis->connection()->get('k'));
            $redis->close();
        });
    }

    /** Waits (bounded) until the server's close of $connection has reached it. */
    private static function waitUntilClosed(RedisConnection $connection): void
    {
        $deadline = \microtime(true) + 20;
        while ($connection->isUsable()) {
            self::assertLessThan($deadline, \microtime(true), 'the killed connection still looks alive');
            sleep(0.05);
        }
    }
}
