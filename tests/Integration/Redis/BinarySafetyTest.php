<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Redis;

use Petrel\Redis\RedisConnection;
use Petrel\Redis\RedisPipeline;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;

/** Keys and values go through byte for byte, whatever they contain and however long. */
#[CoversClass(RedisConnection::class)]
final class BinarySafetyTest extends RedisTestCase
{
    /** @return iterable<string, array{string}> */
    public static function values(): iterable
    {
        yield 'empty' => [''];
        yield 'NUL bytes' => ["a\0b\0\0c"];
        yield 'CRLF and RESP-looking bytes' => ["\r\n+OK\r\n\$5\r\n*-1\r\n:1\r\n"];
        yield 'every byte value' => [\implode('', \array_map('chr', \range(0, 255)))];
        yield 'invalid UTF-8' => ["\xC3\x28\xFF\xFE"];
        yield '1 MiB of random bytes' => [\random_bytes(1024 * 1024)];
    }

    #[DataProvider('values')]
    public function testValueRoundTrips(string $value): void
    {
        $this->async(function () use ($value): void {
            $redis = $this->connect();
            $key = "key\0\r\n" . \substr($value, 0, 64);
            self::assertTrue($redis->set($key, $value));
            self::assertSame($value, $redis->get($key));
            self::assertSame([$value], $redis->mget($key));

            $redis->hset('h', [$key => $value]);
            self::assertSame([$key => $value], $redis->hgetall('h'));
            $redis->rpush('l', $value, 'after');
            self::assertSame([$value, 'after'], $redis->lrange('l'));

            $results = $redis->pipeline(static function (RedisPipeline $pipe) use ($key, $value): void {
                $pipe->set('p', $value)->get('p')->get($key);
            });
            self::assertSame([true, $value, $value], $results);
            self::assertTrue($redis->isUsable());
        });
    }

    public function testRepliesAroundTheFirstReadsSizeAndSmallOnesAfter(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            // "$NNNN\r\n" + value + "\r\n": replies of 2,999 to 3,001 bytes and larger, each
            // followed by a small one, whichever read size the connection has come to.
            foreach ([2990, 2991, 2992, 70_000, 5] as $length) {
                $value = \str_repeat(\chr(97 + $length % 26), $length);
                $redis->set('v', $value);
                self::assertSame($value, $redis->get('v'));
                $redis->set('small', 'x');
                self::assertSame('x', $redis->get('small'));
            }
            self::assertTrue($redis->isUsable());
        });
    }

    public function testManyLargeValuesInOnePipeline(): void
    {
        $this->async(function (): void {
            $redis = $this->connect();
            $values = [];
            for ($i = 0; $i < 8; $i++) {
                $values["big:{$i}"] = \str_repeat(\chr(65 + $i) . "\r\n\0", 300_000);
            }
            $redis->mset($values);
            self::assertSame(\array_values($values), $redis->mget(...\array_keys($values)));
        });
    }
}
