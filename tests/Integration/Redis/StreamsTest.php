<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Redis;

use Petrel\Redis\Redis;
use Petrel\Redis\RedisConnection;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;

use function Petrel\go;

/**
 * INCRBYFLOAT as a float, and the stream helpers with phpredis's shapes: XADD an id,
 * XRANGE [id => fields], XREADGROUP [stream => [id => fields]] and [] for an empty read,
 * XACK a count — in RESP2 and RESP3, directly, pipelined and through the Redis facade.
 */
#[CoversClass(RedisConnection::class)]
final class StreamsTest extends RedisTestCase
{
    /** @return iterable<string, array{int}> */
    public static function protocols(): iterable
    {
        yield 'RESP2' => [2];
        yield 'RESP3' => [3];
    }

    #[DataProvider('protocols')]
    public function testIncrByFloatReturnsAFloat(int $protocol): void
    {
        $this->async(function () use ($protocol): void {
            $redis = $this->connect(self::config()->withProtocol($protocol));
            self::assertSame(1.5, $redis->incrByFloat('f', 1.5));
            self::assertSame(3.0, $redis->incrByFloat('f', 1.5));
            self::assertSame(-0.25, $redis->incrByFloat('f', -3.25));
            self::assertSame([10.5], $redis->pipeline(static fn ($p) => $p->incrByFloat('f', 10.75)));
        });
    }

    #[DataProvider('protocols')]
    public function testStreamHelpers(int $protocol): void
    {
        $this->async(function () use ($protocol): void {
            $redis = $this->connect(self::config()->withProtocol($protocol));
            $first = $redis->xadd('events', '*', ['type' => 'signup', 'user' => 7]);
            self::assertMatchesRegularExpression('/^\d+-\d+$/', $first);
            self::assertSame('5-1', $redis->xadd('ids', '5-1', ['a' => '1']));
            $second = $redis->xadd('events', '*', ['type' => 'login', '42' => "bin\x00ary"]);

            self::assertSame([
                $first => ['type' => 'signup', 'user' => '7'],
                $second => ['type' => 'login', 42 => "bin\x00ary"],
            ], $redis->xrange('events'));
            self::assertSame([$first => ['type' => 'signup', 'user' => '7']], $redis->xrange('events', '-', '+', 1));
            self::assertSame([], $redis->xrange('no-such-stream'));

            $redis->command('XGROUP', 'CREATE', 'events', 'workers', '0');
            self::assertSame(['events' => [
                $first => ['type' => 'signup', 'user' => '7'],
                $second => ['type' => 'login', 42 => "bin\x00ary"],
            ]], $redis->xreadgroup('workers', 'w1', ['events' => '>']));
            self::assertSame([], $redis->xreadgroup('workers', 'w1', ['events' => '>']), 'nothing new: []');
            self::assertSame([], $redis->xreadgroup('workers', 'w1', ['events' => '>'], 10, 50), 'a block that times out: []');
            self::assertSame(2, $redis->xack('events', 'workers', [$first, $second]));
            self::assertSame(['events' => []], $redis->xreadgroup('workers', 'w1', ['events' => '0']), 'no pending entries left');
            self::assertSame(0, $redis->xack('events', 'workers', [$first]));

            self::assertSame(
                [[$first => ['type' => 'signup', 'user' => '7']], 0],
                $redis->pipeline(static fn ($p) => $p->xrange('events', '-', $first)->xack('events', 'workers', [$first])),
            );
            $redis->xadd('capped', '*', ['n' => 1]);
            $redis->xadd('capped', '*', ['n' => 2], 1);
            self::assertCount(1, $redis->xrange('capped'));
        });
    }

    public function testABlockingReadThroughTheFacadeGetsWhatIsAddedMeanwhile(): void
    {
        $this->async(function (): void {
            $redis = new Redis(self::config());
            $redis->command('XGROUP', 'CREATE', 'jobs', 'g', '$', 'MKSTREAM');
            $reader = go(static fn () => $redis->xreadgroup('g', 'c', ['jobs' => '>'], 1, 10_000));
            $deadline = \microtime(true) + 10;
            // Entries added after the group was made reach it either way; this waits so the block is exercised.
            while (self::blockedClients($redis) === 0) {
                self::assertLessThan($deadline, \microtime(true), 'the reader never blocked');
                \Petrel\sleep(0.01);
            }
            $id = $redis->xadd('jobs', '*', ['job' => 'x']);
            self::assertSame(['jobs' => [$id => ['job' => 'x']]], $reader->join());
            $redis->close();
        });
    }

    private static function blockedClients(Redis $redis): int
    {
        \preg_match('/blocked_clients:(\d+)/', (string) $redis->command('INFO', 'clients'), $m);

        return (int) ($m[1] ?? 0);
    }
}
