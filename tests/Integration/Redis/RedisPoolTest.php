<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Redis;

use Petrel\Pool\PoolConfig;
use Petrel\Redis\Redis;
use Petrel\Redis\RedisFailure;

use function Petrel\go;

/** The pooled facade: shared by many coroutines, and recovering from a server restart. */
final class RedisPoolTest extends RedisTestCase
{
    private function redis(int $max = 4): Redis
    {
        return new Redis($this->config(), new PoolConfig(max: $max));
    }

    public function testManyCoroutinesShareAFewConnections(): void
    {
        $this->async(function (): void {
            $redis = $this->redis(3);
            $tasks = [];
            for ($i = 0; $i < 50; $i++) {
                $tasks[] = go(static fn () => $redis->incr('pool:counter'));
            }
            foreach ($tasks as $task) {
                $task->join();
            }
            self::assertSame('50', $redis->get('pool:counter'));
            self::assertLessThanOrEqual(3, $redis->pool()->stats()['size']);
            self::assertSame([true, '1'], $redis->pipeline(static fn ($p) => $p->set('pool:a', 1)->get('pool:a')));
            $redis->close();
        });
    }

    public function testIdleConnectionsKilledByARestartAreReplaced(): void
    {
        $script = \getenv('PETREL_SERVICES_SCRIPT');
        if (!\is_string($script) || $script === '') {
            self::markTestSkipped('needs PETREL_SERVICES_SCRIPT (.ci/services.sh) to restart Redis');
        }
        $this->async(function () use ($script): void {
            $redis = $this->redis(2);
            $redis->set('pool:before', 'x');
            self::assertSame(1, $redis->pool()->stats()['idle']);
            \exec(\escapeshellarg($script) . ' restart redis 2>&1', $output, $code);
            self::assertSame(0, $code, \implode("\n", $output));
            // The idle connection died with the old server; the pool notices at checkout.
            self::assertSame('PONG', $redis->ping());
            $redis->close();
        }, 60.0);
    }

    public function testConnectionFailureIsAClearError(): void
    {
        $this->async(function (): void {
            $redis = Redis::fromUrl('redis://127.0.0.1:1/0', new PoolConfig(max: 1));
            try {
                $redis->get('x');
                self::fail('expected a connection error');
            } catch (RedisFailure $e) {
                self::assertStringContainsString('127.0.0.1:1', $e->getMessage());
            }
        });
    }
}
