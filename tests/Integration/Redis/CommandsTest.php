<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Redis;

use Petrel\Redis\RedisConnection;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;

/** Every convenience method, under RESP2 and RESP3, against a real server. */
#[CoversClass(RedisConnection::class)]
final class CommandsTest extends RedisTestCase
{
    /** @return iterable<string, array{int}> */
    public static function protocols(): iterable
    {
        yield 'RESP2' => [2];
        yield 'RESP3' => [3];
    }

    private function redis(int $protocol): RedisConnection
    {
        return $this->connect(self::config()->withProtocol($protocol));
    }

    #[DataProvider('protocols')]
    public function testStrings(int $protocol): void
    {
        $this->async(function () use ($protocol): void {
            $redis = $this->redis($protocol);
            self::assertNull($redis->get('missing'));
            self::assertTrue($redis->set('s', 'value'));
            self::assertSame('value', $redis->get('s'));
            self::assertTrue($redis->set('n', 42));
            self::assertSame('42', $redis->get('n'));
            self::assertTrue($redis->set('f', 0.1));
            self::assertSame('0.1', $redis->get('f'));

            self::assertFalse($redis->set('s', 'other', nx: true), 'NX on an existing key');
            self::assertTrue($redis->set('fresh', 'v', nx: true));
            self::assertFalse($redis->set('absent', 'v', xx: true), 'XX on a missing key');
            self::assertNull($redis->get('absent'));
            self::assertTrue($redis->set('s', 'other', xx: true));
            self::assertSame('other', $redis->get('s'));

            $redis->mset(['a' => 'A', 'b' => 2, '7' => 'seven']);
            self::assertSame(['A', '2', null, 'seven'], $redis->mget('a', 'b', 'nope', '7'));

            self::assertSame(1, $redis->incr('counter'));
            self::assertSame(11, $redis->incrBy('counter', 10));
            self::assertSame(10, $redis->decr('counter'));
            self::assertSame(-5, $redis->decrBy('counter', 15));
        });
    }

    #[DataProvider('protocols')]
    public function testKeysAndExpiry(int $protocol): void
    {
        $this->async(function () use ($protocol): void {
            $redis = $this->redis($protocol);
            $redis->mset(['k1' => '1', 'k2' => '2', 'other' => '3']);
            self::assertSame(2, $redis->exists('k1', 'k2', 'nope'));
            self::assertSame(2, $redis->exists('k1', 'k1'));

            self::assertSame(-1, $redis->ttl('k1'), 'no expiry');
            self::assertSame(-2, $redis->ttl('nope'), 'missing key');
            self::assertTrue($redis->expire('k1', 100));
            self::assertFalse($redis->expire('nope', 100));
            self::assertGreaterThan(90, $redis->ttl('k1'));
            self::assertTrue($redis->set('ex', 'v', ttl: 50));
            self::assertSame(50, $redis->ttl('ex'));
            self::assertTrue($redis->set('px', 'v', ttl: 2.5));
            $pttl = $redis->command('PTTL', 'px');
            self::assertIsInt($pttl);
            self::assertGreaterThan(2000, $pttl);
            self::assertLessThanOrEqual(2500, $pttl);

            $keys = $redis->keys('k*');
            \sort($keys);
            self::assertSame(['k1', 'k2'], $keys);

            for ($i = 0; $i < 50; $i++) {
                $redis->set("scan:{$i}", $i);
            }
            $seen = [];
            $cursor = '0';
            $rounds = 0;
            do {
                [$cursor, $batch] = $redis->scan($cursor, match: 'scan:*', count: 10);
                self::assertIsString($cursor);
                foreach ($batch as $key) {
                    $seen[$key] = true;
                }
                $rounds++;
            } while ($cursor !== '0');
            self::assertCount(50, $seen);
            self::assertGreaterThan(1, $rounds);
            [, $strings] = $redis->scan(0, count: 1000, type: 'string');
            self::assertCount(55, $strings);

            self::assertSame(2, $redis->del('k1', 'k2', 'nope'));
            self::assertSame(0, $redis->exists('k1'));
        });
    }

    #[DataProvider('protocols')]
    public function testHashes(int $protocol): void
    {
        $this->async(function () use ($protocol): void {
            $redis = $this->redis($protocol);
            self::assertSame([], $redis->hgetall('nope'));
            self::assertNull($redis->hget('nope', 'f'));
            self::assertSame(3, $redis->hset('h', ['name' => 'Ada', 'age' => 36, '0' => 'zero']));
            self::assertSame(0, $redis->hset('h', ['name' => 'Ada L.']));
            self::assertSame('Ada L.', $redis->hget('h', 'name'));
            self::assertNull($redis->hget('h', 'missing'));
            $all = $redis->hgetall('h');
            \ksort($all);
            self::assertSame([0 => 'zero', 'age' => '36', 'name' => 'Ada L.'], $all, 'numeric field "0" becomes key 0');
            self::assertSame(2, $redis->hdel('h', 'age', '0', 'missing'));
            self::assertSame(['name' => 'Ada L.'], $redis->hgetall('h'));
        });
    }

    #[DataProvider('protocols')]
    public function testLists(int $protocol): void
    {
        $this->async(function () use ($protocol): void {
            $redis = $this->redis($protocol);
            self::assertSame(0, $redis->llen('l'));
            self::assertSame([], $redis->lrange('l'));
            self::assertNull($redis->lpop('l'));
            self::assertNull($redis->rpop('l'));
            self::assertSame(3, $redis->rpush('l', 'b', 'c', 4));
            self::assertSame(5, $redis->lpush('l', 'a', 'z'));
            self::assertSame(['z', 'a', 'b', 'c', '4'], $redis->lrange('l'));
            self::assertSame(['a', 'b'], $redis->lrange('l', 1, 2));
            self::assertSame(['c', '4'], $redis->lrange('l', -2));
            self::assertSame('z', $redis->lpop('l'));
            self::assertSame('4', $redis->rpop('l'));
            self::assertSame(3, $redis->llen('l'));
        });
    }

    #[DataProvider('protocols')]
    public function testSets(int $protocol): void
    {
        $this->async(function () use ($protocol): void {
            $redis = $this->redis($protocol);
            self::assertSame([], $redis->smembers('s'));
            self::assertSame(3, $redis->sadd('s', 'a', 'b', 3));
            self::assertSame(1, $redis->sadd('s', 'a', 'c'));
            $members = $redis->smembers('s');
            \sort($members);
            self::assertSame(['3', 'a', 'b', 'c'], $members);
            self::assertTrue($redis->sismember('s', 'a'));
            self::assertTrue($redis->sismember('s', 3));
            self::assertFalse($redis->sismember('s', 'x'));
            self::assertSame(2, $redis->srem('s', 'a', 'b', 'x'));
            self::assertFalse($redis->sismember('s', 'a'));
        });
    }

    #[DataProvider('protocols')]
    public function testSortedSets(int $protocol): void
    {
        $this->async(function () use ($protocol): void {
            $redis = $this->redis($protocol);
            self::assertSame([], $redis->zrange('z'));
            self::assertSame([], $redis->zrange('z', withScores: true));
            self::assertSame(4, $redis->zadd('z', ['b' => 2, 'a' => 1.5, 'c' => -INF, '10' => 1e20]));
            self::assertSame(0, $redis->zadd('z', ['a' => 3]));
            self::assertSame(['c', 'b', 'a', '10'], $redis->zrange('z'));
            self::assertSame(['b', 'a'], $redis->zrange('z', 1, 2));
            self::assertSame(['c' => -INF, 'b' => 2.0, 'a' => 3.0, 10 => 1e20], $redis->zrange('z', withScores: true));
            self::assertSame(3.0, $redis->zscore('z', 'a'));
            self::assertSame(-INF, $redis->zscore('z', 'c'));
            self::assertNull($redis->zscore('z', 'nope'));
            self::assertSame(2, $redis->zrem('z', 'a', 'c', 'nope'));
            self::assertSame(['b', '10'], $redis->zrange('z'));
        });
    }

    #[DataProvider('protocols')]
    public function testServerAndPubSubCommands(int $protocol): void
    {
        $this->async(function () use ($protocol): void {
            $redis = $this->redis($protocol);
            self::assertSame('PONG', $redis->ping());
            self::assertSame("hello\r\nworld", $redis->ping("hello\r\nworld"));
            self::assertSame(0, $redis->publish('nobody-listens', 'x'));
            $redis->set('k', 'v');
            $redis->flushdb();
            self::assertSame([], $redis->keys());
            self::assertSame(self::DATABASE, $redis->getConfig()->database);
        });
    }

    #[DataProvider('protocols')]
    public function testGenericCommandReturnsDecodedReplies(int $protocol): void
    {
        $this->async(function () use ($protocol): void {
            $redis = $this->redis($protocol);
            self::assertSame('OK', $redis->command('SET', 'k', 'v'));
            self::assertSame('v', $redis->command('get', 'k'), 'names are case-insensitive');
            self::assertSame(1, $redis->command('EXISTS', 'k'));
            self::assertSame('string', $redis->command('TYPE', 'k'));
            self::assertNull($redis->command('GET', 'missing'));
            self::assertSame(['v', null], $redis->command('MGET', 'k', 'missing'));
            self::assertSame(1.5, (float) $redis->command('INCRBYFLOAT', 'f', 1.5));
        });
    }
}
