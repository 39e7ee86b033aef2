<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Redis;

use Petrel\Redis\RedisConnection;
use Petrel\Redis\RedisError;
use Petrel\Redis\RedisException;
use Petrel\Redis\RedisPipeline;
use PHPUnit\Framework\Attributes\CoversClass;

#[CoversClass(RedisConnection::class)]
#[CoversClass(RedisPipeline::class)]
final class PipelineTest extends RedisTestCase
{
    public function testThousandCommandsInOneRoundTrip(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            $results = $redis->pipeline(static function (RedisPipeline $pipe): void {
                for ($i = 0; $i < 500; $i++) {
                    $pipe->set("k:{$i}", "v{$i}");
                }
                for ($i = 0; $i < 500; $i++) {
                    $pipe->get("k:{$i}");
                }
                self::assertCount(1000, $pipe);
            });
            self::assertCount(1000, $results);
            self::assertSame(\array_fill(0, 500, true), \array_slice($results, 0, 500));
            self::assertSame(\array_map(static fn (int $i): string => "v{$i}", \range(0, 499)), \array_slice($results, 500));
            self::assertSame('v499', $redis->get('k:499'));
        });
    }

    public function testErrorRepliesAreReturnedInPlaceAndTheOthersStillRun(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            $results = $redis->pipeline(static function (RedisPipeline $pipe): void {
                $pipe->set('s', 'text');
                $pipe->incr('s');                       // WRONGTYPE-like: not an integer
                $pipe->lpush('s', 'x');                 // WRONGTYPE
                $pipe->command('NO-SUCH-COMMAND');
                $pipe->get('s');
            });
            self::assertCount(5, $results);
            self::assertTrue($results[0]);
            self::assertInstanceOf(RedisException::class, $results[1]);
            self::assertSame('ERR', $results[1]->kind());
            self::assertInstanceOf(RedisException::class, $results[2]);
            self::assertSame('WRONGTYPE', $results[2]->kind());
            self::assertInstanceOf(RedisException::class, $results[3]);
            self::assertStringContainsString('unknown command', $results[3]->getMessage());
            self::assertSame('text', $results[4]);
            self::assertTrue($redis->isUsable());
        });
    }

    public function testResultsAreConvertedLikeTheMethods(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            $results = $redis->pipeline(static function (RedisPipeline $pipe): void {
                $pipe->set('a', 1)->set('a', 2, nx: true)->mset(['b' => 1])->hset('h', ['f' => 'v'])
                    ->hgetall('h')->expire('a', 10)->expire('nope', 10)->zadd('z', ['m' => 2.5])
                    ->zrange('z', withScores: true)->zscore('z', 'm')->flushdb()->command('PING');
            });
            self::assertSame([true, false, null, 1, ['f' => 'v'], true, false, 1, ['m' => 2.5], 2.5, null, 'PONG'], $results);
        });
    }

    public function testEmptyPipelineSendsNothing(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            self::assertSame([], $redis->pipeline(static function (): void {
            }));
            self::assertSame('PONG', $redis->ping());
        });
    }

    public function testAClosureThatThrowsSendsNothing(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            try {
                $redis->pipeline(static function (RedisPipeline $pipe): void {
                    $pipe->set('a', '1');
                    throw new \DomainException('changed my mind');
                });
                self::fail('the exception should propagate');
            } catch (\DomainException $e) {
                self::assertSame('changed my mind', $e->getMessage());
            }
            self::assertNull($redis->get('a'));
            self::assertTrue($redis->isUsable());
        });
    }

    public function testThePipelineCannotBeUsedAfterItsClosure(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            $kept = null;
            $redis->pipeline(static function (RedisPipeline $pipe) use (&$kept): void {
                $kept = $pipe;
                $pipe->ping();
            });
            self::assertInstanceOf(RedisPipeline::class, $kept);
            $this->expectException(RedisError::class);
            $kept->ping();
        });
    }

    public function testModeChangingCommandsAreRefused(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            try {
                $redis->pipeline(static function (RedisPipeline $pipe): void {
                    $pipe->command('multi');
                });
                self::fail('MULTI should be refused');
            } catch (RedisError $e) {
                self::assertStringContainsString('transaction()', $e->getMessage());
            }
            self::assertTrue($redis->isUsable());
        });
    }
}
