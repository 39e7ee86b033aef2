<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Redis;

use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Petrel\Redis\Internal\RespParser;
use Petrel\Redis\Internal\RespScalars;

/** Every RESP2/RESP3 type, fed whole, byte by byte and in random splits. */
#[CoversClass(RespParser::class)]
#[CoversClass(RespScalars::class)]
final class RespParserTypesTest extends TestCase
{
    /** @return iterable<string, array{string, mixed}> wire bytes and the normalised reply */
    public static function replies(): iterable
    {
        yield 'simple string' => ["+OK\r\n", 'OK'];
        yield 'empty simple string' => ["+\r\n", ''];
        yield 'simple string with spaces' => ["+hello world\r\n", 'hello world'];
        yield 'simple error' => ["-ERR unknown command 'FOO'\r\n", ['@error', 'ERR', "unknown command 'FOO'"]];
        yield 'WRONGTYPE error' => ["-WRONGTYPE Operation against a key\r\n", ['@error', 'WRONGTYPE', 'Operation against a key']];
        yield 'MOVED error' => ["-MOVED 3999 127.0.0.1:6381\r\n", ['@error', 'MOVED', '3999 127.0.0.1:6381']];
        yield 'error without message' => ["-NOSCRIPT\r\n", ['@error', 'NOSCRIPT', '']];
        yield 'error without upper-case kind' => ["-oops: bad\r\n", ['@error', '', 'oops: bad']];
        yield 'integer' => [":1000\r\n", 1000];
        yield 'zero' => [":0\r\n", 0];
        yield 'negative integer' => [":-42\r\n", -42];
        yield 'integer with plus sign' => [":+7\r\n", 7];
        yield 'integer max' => [':' . PHP_INT_MAX . "\r\n", PHP_INT_MAX];
        yield 'integer min' => [':' . PHP_INT_MIN . "\r\n", PHP_INT_MIN];
        yield 'bulk string' => ["\$5\r\nhello\r\n", 'hello'];
        yield 'empty bulk string' => ["\$0\r\n\r\n", ''];
        yield 'binary bulk string' => ["\$6\r\na\r\n\0b\n\r\n", "a\r\n\0b\n"];
        yield 'bulk string of CRLFs' => ["\$4\r\n\r\n\r\n\r\n", "\r\n\r\n"];
        yield 'null bulk string' => ["\$-1\r\n", null];
        yield 'array' => ["*2\r\n\$3\r\nfoo\r\n:1\r\n", ['foo', 1]];
        yield 'empty array' => ["*0\r\n", []];
        yield 'null array' => ["*-1\r\n", null];
        yield 'null' => ["_\r\n", null];
        yield 'true' => ["#t\r\n", true];
        yield 'false' => ["#f\r\n", false];
        yield 'double' => [",1.23\r\n", 1.23];
        yield 'integral double' => [",10\r\n", 10.0];
        yield 'negative double' => [",-0.5\r\n", -0.5];
        yield 'double with exponent' => [",1.5e-7\r\n", 1.5e-7];
        yield 'double with upper-case exponent' => [",2E+10\r\n", 2e10];
        yield 'inf' => [",inf\r\n", INF];
        yield '-inf' => [",-inf\r\n", -INF];
        yield 'nan' => [",nan\r\n", '@nan'];
        yield '-nan (Redis < 7.2)' => [",-nan\r\n", '@nan'];
        yield 'NAN (Redis < 7.2)' => [",NAN\r\n", '@nan'];
        yield 'big number' => ["(3492890328409238509324850943850943825024385\r\n", '3492890328409238509324850943850943825024385'];
        yield 'negative big number' => ["(-12345678901234567890\r\n", '-12345678901234567890'];
        yield 'blob error' => ["!21\r\nSYNTAX invalid syntax\r\n", ['@error', 'SYNTAX', 'invalid syntax']];
        yield 'blob error with CRLF' => ["!8\r\nERR a\r\nb\r\n", ['@error', 'ERR', "a\r\nb"]];
        yield 'verbatim string' => ["=15\r\ntxt:Some string\r\n", 'Some string'];
        yield 'empty verbatim markdown' => ["=4\r\nmkd:\r\n", ''];
        yield 'map' => ["%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n", ['first' => 1, 'second' => 2]];
        yield 'empty map' => ["%0\r\n", []];
        yield 'set' => ["~3\r\n+orange\r\n+apple\r\n#t\r\n", ['orange', 'apple', true]];
        yield 'set keeps duplicates' => ["~2\r\n:1\r\n:1\r\n", [1, 1]];
        yield 'empty set' => ["~0\r\n", []];
        yield 'push' => [">3\r\n+message\r\n+channel\r\n\$5\r\nhello\r\n", ['@push', ['message', 'channel', 'hello']]];
        yield 'empty push' => [">0\r\n", ['@push', []]];
    }

    #[DataProvider('replies')]
    public function testWhole(string $wire, mixed $expected): void
    {
        self::assertSame([$expected], RespFeeder::whole($wire));
    }

    #[DataProvider('replies')]
    public function testByteByByte(string $wire, mixed $expected): void
    {
        self::assertSame([$expected], RespFeeder::byteByByte($wire));
    }

    #[DataProvider('replies')]
    public function testRandomSplits(string $wire, mixed $expected): void
    {
        foreach ([1, 2, 3, 42] as $seed) {
            self::assertSame([$expected], RespFeeder::randomSplits($wire, $seed, 4), "seed $seed");
        }
    }

    #[DataProvider('replies')]
    public function testBetweenOtherReplies(string $wire, mixed $expected): void
    {
        $replies = RespFeeder::randomSplits(":1\r\n" . $wire . "+after\r\n", 7, 5);

        self::assertSame([1, $expected, 'after'], $replies);
    }

    public function testIntegerRepliesAreIntsAndDoublesAreFloats(): void
    {
        [$int, $float, $bulk] = RespFeeder::whole(":10\r\n,10\r\n\$2\r\n10\r\n");

        self::assertSame(10, $int);
        self::assertSame(10.0, $float);
        self::assertSame('10', $bulk);
    }

    public function testUnusualIntegerFormsAreNormalised(): void
    {
        self::assertSame([7, 0, 0, -12, PHP_INT_MIN], RespFeeder::whole(":007\r\n:-0\r\n:+0\r\n:-012\r\n:-09223372036854775808\r\n"));
    }
}
