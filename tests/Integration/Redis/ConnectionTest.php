<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Redis;

use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\TimeoutException;
use Petrel\Redis\RedisConfig;
use Petrel\Redis\RedisConnection;
use Petrel\Redis\RedisConnectionException;
use Petrel\Redis\RedisError;
use Petrel\Redis\RedisException;
use Petrel\Redis\RedisFailure;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\go;
use function Petrel\parallel;
use function Petrel\sleep;
use function Petrel\timeout;

/** Connection life: database selection, errors, exclusivity, loss, deadlines, many at once. */
#[CoversClass(RedisConnection::class)]
final class ConnectionTest extends RedisTestCase
{
    public function testSelectsTheConfiguredDatabase(): void
    {
        $this->async(function (): void {
            $test = $this->connect();
            $other = $this->connect(self::config()->withDatabase(self::DATABASE - 1));
            $test->set('where', 'test db');
            self::assertNull($other->get('where'));
            self::assertSame(self::DATABASE, $this->clientInfo($test)['db']);
            self::assertSame(self::DATABASE - 1, $this->clientInfo($other)['db']);
        });
    }

    public function testServerErrorReplyThrowsWithItsKindAndKeepsTheConnection(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            $redis->set('s', 'text');
            try {
                $redis->lpush('s', 'x');
                self::fail('WRONGTYPE expected');
            } catch (RedisException $e) {
                self::assertInstanceOf(RedisFailure::class, $e);
                self::assertSame('WRONGTYPE', $e->kind());
                self::assertSame('Operation against a key holding the wrong kind of value', $e->serverMessage());
            }
            try {
                $redis->incr('s');
                self::fail('ERR expected');
            } catch (RedisException $e) {
                self::assertSame('ERR', $e->kind());
            }
            self::assertTrue($redis->isUsable());
            self::assertSame('text', $redis->get('s'));
        });
    }

    /**
     * SYNC and PSYNC went through: the server's RDB snapshot (a bulk string without its
     * CRLF) was taken for a protocol error after ~7 s, and the connection was lost;
     * REPLCONF ACK gets no reply. They are refused before anything is sent.
     */
    public function testModeChangingCommandsAreRefusedByCommand(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            foreach (['subscribe', 'PSUBSCRIBE', 'MULTI', 'exec', 'DISCARD', 'HELLO', 'MONITOR', 'RESET', 'SYNC', 'psync', 'REPLCONF'] as $name) {
                try {
                    $redis->command($name, 'x');
                    self::fail("{$name} should be refused");
                } catch (RedisError $e) {
                    self::assertStringContainsString(\strtoupper($name), $e->getMessage());
                }
            }
            self::assertTrue($redis->isUsable());
        });
    }

    public function testASecondCoroutineIsRefusedWhileACallIsInFlight(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            $helper = $this->connect();
            $waiting = go(static fn () => $redis->command('BLPOP', 'queue', 5));
            try {
                $redis->get('anything');
                self::fail('concurrent use must be refused');
            } catch (RedisError $e) {
                self::assertStringContainsString("already in use by coroutine #{$waiting->id}", $e->getMessage());
                self::assertStringContainsString('pool', $e->getMessage());
            }
            self::assertFalse($redis->isUsable(), 'a call is in flight');
            $helper->rpush('queue', 'job');
            self::assertSame(['queue', 'job'], $waiting->join());
            self::assertTrue($redis->isUsable(), 'the refused call did not disturb the one in flight');
            self::assertSame('PONG', $redis->ping());
        });
    }

    public function testConnectionKilledByTheServerThrowsAndBecomesUnusable(): void
    {
        $this->async(function (): void {
            $victim = $this->connect();
            $killer = $this->connect();
            $id = $victim->command('CLIENT', 'ID');
            self::assertIsInt($id);
            self::assertSame(1, $killer->command('CLIENT', 'KILL', 'ID', $id));
            try {
                $victim->get('k');
                self::fail('the connection was killed');
            } catch (RedisConnectionException $e) {
                self::assertStringContainsString(self::config()->endpoint(), $e->getMessage());
            }
            self::assertFalse($victim->isUsable());
            self::assertTrue($victim->isClosed());
            $this->expectException(RedisConnectionException::class);
            $this->expectExceptionMessage('is closed');
            $victim->ping();
        });
    }

    public function testADeadlineMidCommandClosesTheConnection(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            $start = \hrtime(true);
            try {
                timeout(0.01, static fn () => $redis->command('BLPOP', 'key', 1));
                self::fail('TimeoutException expected');
            } catch (TimeoutException) {
            }
            self::assertLessThan(0.5, (\hrtime(true) - $start) / 1e9);
            self::assertFalse($redis->isUsable());
            self::assertTrue($redis->isClosed());
            try {
                $redis->get('key');
                self::fail('a desynchronised connection must not be used');
            } catch (RedisConnectionException $e) {
                self::assertStringContainsString('TimeoutException', $e->getMessage());
            }
        });
    }

    public function testCancellingTheCoroutineMidCommandClosesTheConnection(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            $blocked = go(static fn () => $redis->command('BLPOP', 'key', 5));
            $blocked->cancel();
            try {
                $blocked->join();
                self::fail('CancelledException expected');
            } catch (CancelledException) {
            }
            self::assertFalse($redis->isUsable());
        });
    }

    public function testCloseWhileAnotherCoroutineWaits(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            $blocked = go(static fn () => $redis->command('BLPOP', 'key', 5));
            $redis->close();
            try {
                $blocked->join();
                self::fail('RedisConnectionException expected');
            } catch (RedisConnectionException $e) {
                self::assertStringContainsString('closed', $e->getMessage());
            }
            self::assertTrue($redis->isClosed());
            $redis->close(); // idempotent
        });
    }

    public function testConnectionRefused(): void
    {
        $this->async(function (): void {
            $server = \Petrel\Socket\listen('127.0.0.1:0');
            $address = $server->getAddress();
            $server->close(); // a port nobody listens on
            [$host, $port] = \explode(':', $address);
            try {
                RedisConnection::connect(new RedisConfig($host, (int) $port));
                self::fail('RedisConnectionException expected');
            } catch (RedisConnectionException $e) {
                self::assertStringStartsWith("Could not connect to Redis at {$address}: ", $e->getMessage());
            }
        });
    }

    public function testHundredCoroutinesEachWithItsOwnConnection(): void
    {
        $this->async(function (): void {
            $tasks = [];
            for ($i = 0; $i < 100; $i++) {
                $tasks[$i] = static function () use ($i): string {
                    $redis = RedisConnection::connect(self::config());
                    try {
                        $redis->set("c:{$i}", "v{$i}");
                        sleep(0.001 * ($i % 5));
                        $redis->incr('total');

                        return (string) $redis->get("c:{$i}");
                    } finally {
                        $redis->close();
                    }
                };
            }
            $results = parallel($tasks);
            self::assertSame(\array_map(static fn (int $i): string => "v{$i}", \range(0, 99)), $results);
            self::assertSame('100', $this->connect()->get('total'));
        });
    }

    /** @return array<string, int|string> */
    private function clientInfo(RedisConnection $redis): array
    {
        $info = [];
        $line = $redis->command('CLIENT', 'INFO');
        self::assertIsString($line);
        foreach (\explode(' ', \trim($line)) as $pair) {
            [$name, $value] = \explode('=', $pair, 2) + [1 => ''];
            $info[$name] = \ctype_digit($value) ? (int) $value : $value;
        }

        return $info;
    }
}
