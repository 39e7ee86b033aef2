<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Redis;

use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Petrel\Redis\Internal\AggregateFrame;
use Petrel\Redis\Internal\RespParser;
use Petrel\Redis\PushMessage;

/** Nested aggregates, maps, attributes, push data and pipelined replies. */
#[CoversClass(RespParser::class)]
#[CoversClass(AggregateFrame::class)]
final class RespParserAggregateTest extends TestCase
{
    /** @return iterable<string, array{string, list<mixed>}> wire bytes and the normalised replies */
    public static function streams(): iterable
    {
        yield 'nested arrays' => [
            "*2\r\n*3\r\n:1\r\n\$5\r\nhello\r\n:2\r\n#f\r\n",
            [[[1, 'hello', 2], false]],
        ];
        yield 'array with null elements' => [
            "*3\r\n\$-1\r\n*-1\r\n_\r\n",
            [[null, null, null]],
        ];
        yield 'array of empty aggregates' => [
            "*4\r\n*0\r\n%0\r\n~0\r\n\$0\r\n\r\n",
            [[[], [], [], '']],
        ];
        yield 'deeply nested' => [
            str_repeat("*1\r\n", 20) . ":5\r\n",
            [array_reduce(range(1, 20), static fn (mixed $inner): array => [$inner], 5)],
        ];
        yield 'XREAD-like shape' => [
            "*1\r\n*2\r\n\$6\r\nstream\r\n*1\r\n*2\r\n\$3\r\n1-0\r\n*2\r\n\$1\r\nf\r\n\$1\r\nv\r\n",
            [[['stream', [['1-0', ['f', 'v']]]]]],
        ];
        yield 'map with nested values' => [
            "%3\r\n+list\r\n*2\r\n:1\r\n:2\r\n+map\r\n%1\r\n+k\r\n~1\r\n+v\r\n+null\r\n_\r\n",
            [['list' => [1, 2], 'map' => ['k' => ['v']], 'null' => null]],
        ];
        yield 'map with integer and bulk keys' => [
            "%2\r\n:1\r\n+one\r\n\$3\r\ntwo\r\n:2\r\n",
            [[1 => 'one', 'two' => 2]],
        ];
        yield 'map key that is a numeric string becomes an int key' => [
            "%1\r\n\$2\r\n42\r\n+v\r\n",
            [[42 => 'v']],
        ];
        yield 'map repeated key keeps the last value' => [
            "%2\r\n+k\r\n:1\r\n+k\r\n:2\r\n",
            [['k' => 2]],
        ];
        yield 'map with an aggregate key is returned flat' => [
            "%2\r\n+a\r\n:1\r\n*1\r\n:9\r\n+v\r\n",
            [['a', 1, [9], 'v']],
        ];
        yield 'map with null, bool and double keys is returned flat' => [
            "%3\r\n_\r\n:1\r\n#t\r\n:2\r\n,1.5\r\n:3\r\n",
            [[null, 1, true, 2, 1.5, 3]],
        ];
        yield 'array of maps' => [
            "*2\r\n%1\r\n+a\r\n:1\r\n%1\r\n+b\r\n:2\r\n",
            [[['a' => 1], ['b' => 2]]],
        ];
        yield 'attribute before a reply is dropped' => [
            "|1\r\n+key-popularity\r\n%2\r\n\$1\r\na\r\n,0.1923\r\n\$1\r\nb\r\n,0.0012\r\n*2\r\n:2039123\r\n:9543892\r\n",
            [[2039123, 9543892]],
        ];
        yield 'attribute inside an array is dropped' => [
            "*3\r\n:1\r\n:2\r\n|1\r\n+ttl\r\n:3600\r\n:3\r\n",
            [[1, 2, 3]],
        ];
        yield 'empty attribute' => ["|0\r\n+OK\r\n", ['OK']];
        yield 'attribute as a map value' => ["%1\r\n+k\r\n|1\r\n+a\r\n:1\r\n+v\r\n", [['k' => 'v']]];
        yield 'push between replies' => [
            "\$3\r\none\r\n>3\r\n\$7\r\nmessage\r\n\$2\r\nch\r\n\$2\r\nhi\r\n*1\r\n\$3\r\ntwo\r\n",
            ['one', ['@push', ['message', 'ch', 'hi']], ['two']],
        ];
        yield 'push and array with the same content differ' => [
            ">2\r\n+a\r\n+b\r\n*2\r\n+a\r\n+b\r\n",
            [['@push', ['a', 'b']], ['a', 'b']],
        ];
        yield 'pipelined mix' => [
            "+OK\r\n:1\r\n\$3\r\nbar\r\n\$-1\r\n-ERR no\r\n*2\r\n:1\r\n:2\r\n%1\r\n+k\r\n+v\r\n_\r\n#t\r\n,2.5\r\n(99999999999999999999\r\n=7\r\ntxt:abc\r\n~1\r\n:1\r\n>1\r\n+x\r\n+QUEUED\r\n",
            [
                'OK', 1, 'bar', null, ['@error', 'ERR', 'no'], [1, 2], ['k' => 'v'], null, true, 2.5,
                '99999999999999999999', 'abc', [1], ['@push', ['x']], 'QUEUED',
            ],
        ];
        yield 'EXEC reply holding an error' => [
            "*3\r\n+OK\r\n-WRONGTYPE bad\r\n:2\r\n",
            [['OK', ['@error', 'WRONGTYPE', 'bad'], 2]],
        ];
    }

    /** @param list<mixed> $expected */
    #[DataProvider('streams')]
    public function testWhole(string $wire, array $expected): void
    {
        self::assertSame($expected, RespFeeder::whole($wire));
    }

    /** @param list<mixed> $expected */
    #[DataProvider('streams')]
    public function testByteByByte(string $wire, array $expected): void
    {
        self::assertSame($expected, RespFeeder::byteByByte($wire));
    }

    /** @param list<mixed> $expected */
    #[DataProvider('streams')]
    public function testRandomSplits(string $wire, array $expected): void
    {
        foreach (range(1, 10) as $seed) {
            self::assertSame($expected, RespFeeder::randomSplits($wire, $seed, 9), "seed $seed");
        }
    }

    public function testPushIsAPushMessageValue(): void
    {
        $parser = new RespParser();
        $parser->feed(">3\r\n\$7\r\nmessage\r\n\$2\r\nch\r\n\$5\r\nhello\r\n*1\r\n+x\r\n");

        $push = $parser->next();
        self::assertInstanceOf(PushMessage::class, $push);
        self::assertSame('message', $push->kind());
        self::assertSame(['message', 'ch', 'hello'], $push->data);
        self::assertSame(['x'], $parser->next());
    }

    public function testReplyIsReadyOnlyWhenTheOutermostAggregateIsComplete(): void
    {
        $parser = new RespParser();
        $parser->feed("*2\r\n*2\r\n:1\r\n:2\r\n");
        self::assertFalse($parser->hasNext());
        $parser->feed(":3");
        self::assertFalse($parser->hasNext());
        $parser->feed("\r\n");
        self::assertTrue($parser->hasNext());
        self::assertSame([[1, 2], 3], $parser->next());
        self::assertFalse($parser->hasNext());
    }

    public function testLargeArrayArrivingInSmallReadsIsParsedOnce(): void
    {
        $count = 50_000;
        $wire = '*' . $count . "\r\n" . str_repeat("\$3\r\nabc\r\n", $count);
        $chunks = str_split($wire, 3);
        $last = array_pop($chunks);
        $parser = new RespParser();
        $start = hrtime(true);
        foreach ($chunks as $chunk) {
            $parser->feed($chunk);
            if ($parser->hasNext()) {
                self::fail('a reply was ready before the last byte of the array');
            }
        }
        $parser->feed((string) $last);
        $elapsed = (hrtime(true) - $start) / 1e9;

        // Re-parsing the array from scratch on each of the ~150k feeds would take minutes.
        self::assertLessThan(5.0, $elapsed);
        self::assertTrue($parser->hasNext());
        self::assertSame(array_fill(0, $count, 'abc'), $parser->next());
    }
}
