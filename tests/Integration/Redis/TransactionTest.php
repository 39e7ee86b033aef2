<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Redis;

use Petrel\Redis\RedisConnection;
use Petrel\Redis\RedisException;
use Petrel\Redis\RedisPipeline;
use PHPUnit\Framework\Attributes\CoversClass;

#[CoversClass(RedisConnection::class)]
final class TransactionTest extends RedisTestCase
{
    public function testCommitReturnsTheResults(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            $results = $redis->transaction(static function (RedisPipeline $tx): void {
                $tx->set('a', '1')->incr('a')->incrBy('a', 10)->get('a')->hgetall('none');
            });
            self::assertSame([true, 2, 12, '12', []], $results);
            self::assertSame('12', $redis->get('a'));
            self::assertSame([], $redis->transaction(static function (): void {
            }), 'an empty transaction');
        });
    }

    public function testExecutionErrorsAreReturnedInPlace(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            $results = $redis->transaction(static function (RedisPipeline $tx): void {
                $tx->set('s', 'text')->lpush('s', 'x')->get('s');
            });
            self::assertNotNull($results);
            self::assertTrue($results[0]);
            self::assertInstanceOf(RedisException::class, $results[1]);
            self::assertSame('WRONGTYPE', $results[1]->kind());
            self::assertSame('text', $results[2]);
        });
    }

    public function testAClosureThatThrowsDiscardsEverything(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            $redis->set('a', 'before');
            try {
                $redis->transaction(static function (RedisPipeline $tx): void {
                    $tx->set('a', 'after')->set('b', 'x');
                    throw new \DomainException('abort');
                });
                self::fail('the exception should propagate');
            } catch (\DomainException $e) {
                self::assertSame('abort', $e->getMessage());
            }
            self::assertSame('before', $redis->get('a'));
            self::assertNull($redis->get('b'));
            self::assertTrue($redis->isUsable());
        });
    }

    public function testACommandRefusedWhileQueueingAbortsTheTransaction(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            try {
                $redis->transaction(static function (RedisPipeline $tx): void {
                    $tx->set('a', '1')->command('NO-SUCH-COMMAND', 'x');
                });
                self::fail('EXECABORT expected');
            } catch (RedisException $e) {
                self::assertSame('EXECABORT', $e->kind());
                $previous = $e->getPrevious();
                self::assertInstanceOf(RedisException::class, $previous);
                self::assertStringContainsString('unknown command', $previous->getMessage());
            }
            self::assertNull($redis->get('a'), 'nothing was executed');
            self::assertTrue($redis->isUsable());
        });
    }

    public function testWatchConflictReturnsNullAndExecutesNothing(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            $other = $this->connect();
            $redis->set('balance', 100);

            $redis->watch('balance');
            self::assertFalse($redis->isUsable(), 'a pending WATCH would leak to the next user');
            $balance = (int) $redis->get('balance');
            $other->set('balance', 0);                       // someone else changes it meanwhile
            $result = $redis->transaction(static function (RedisPipeline $tx) use ($balance): void {
                $tx->set('balance', $balance - 30)->set('audit', 'debited');
            });
            self::assertNull($result);
            self::assertSame('0', $redis->get('balance'));
            self::assertNull($redis->get('audit'));
            self::assertTrue($redis->isUsable(), 'EXEC ended the watch');

            // The retry succeeds once nobody interferes.
            $redis->watch('balance');
            $balance = (int) $redis->get('balance');
            $result = $redis->transaction(static function (RedisPipeline $tx) use ($balance): void {
                $tx->set('balance', $balance + 5);
            });
            self::assertSame([true], $result);
            self::assertSame('5', $redis->get('balance'));
        });
    }

    public function testAThrowingClosureReleasesTheWatch(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            $other = $this->connect();
            $redis->watch('k');
            try {
                $redis->transaction(static function (): void {
                    throw new \DomainException('no');
                });
            } catch (\DomainException) {
            }
            self::assertTrue($redis->isUsable());
            $other->set('k', 'changed');
            // Were the watch still active, this transaction would abort (null).
            self::assertSame([true], $redis->transaction(static fn (RedisPipeline $tx) => $tx->set('k', 'mine')));
            self::assertSame('mine', $redis->get('k'));

            $redis->watch('k');
            $redis->unwatch();
            self::assertTrue($redis->isUsable());
        });
    }
}
