<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Redis;

use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Petrel\Redis\Internal\RespParser;
use Petrel\Redis\RedisProtocolException;

/** Large replies, buffer management, limits and the hasNext()/next() contract. */
#[CoversClass(RespParser::class)]
final class RespParserBufferTest extends TestCase
{
    private const MEGABYTE = 1024 * 1024;

    private static function bigValue(): string
    {
        // Not one repeated byte, so that a misplaced chunk would show.
        return substr(str_repeat(implode('', range('a', 'z')) . "\r\n\0", intdiv(self::MEGABYTE, 29) + 1), 0, self::MEGABYTE);
    }

    /** @return iterable<string, array{positive-int}> */
    public static function chunkSizes(): iterable
    {
        yield 'one buffer' => [PHP_INT_MAX];
        yield '64 KiB reads' => [65536];
        yield '4 KiB reads' => [4096];
        yield '1000-byte reads' => [1000];
        yield '1-byte reads' => [1];
    }

    /** @param positive-int $chunkSize */
    #[DataProvider('chunkSizes')]
    public function testOneMegabyteBulkString(int $chunkSize): void
    {
        $value = self::bigValue();
        $wire = "+before\r\n\$" . strlen($value) . "\r\n" . $value . "\r\n:1\r\n";
        $chunks = $chunkSize >= strlen($wire) ? [$wire] : str_split($wire, $chunkSize);

        $replies = RespFeeder::chunks($chunks);

        self::assertCount(3, $replies);
        self::assertSame('before', $replies[0]);
        self::assertSame(strlen($value), strlen($replies[1]));
        self::assertTrue($value === $replies[1], 'the 1 MB value differs');
        self::assertSame(1, $replies[2]);
    }

    public function testOneMegabyteBulkStringInRandomReads(): void
    {
        $value = self::bigValue();
        $wire = '*2' . "\r\n\$" . strlen($value) . "\r\n" . $value . "\r\n\$3\r\nend\r\n";

        foreach ([1, 2, 3] as $seed) {
            $replies = RespFeeder::chunks(RespFeeder::split($wire, $seed, 20_000));
            self::assertCount(1, $replies);
            self::assertTrue([$value, 'end'] === $replies[0], "seed $seed");
        }
    }

    public function testManyRepliesAcrossManyReadsWithCompaction(): void
    {
        // ~1.4 MB of pipelined replies in uneven reads: the buffer is compacted many
        // times while a partial reply sits at its end.
        $wire = '';
        $expected = [];
        for ($i = 0; $i < 20_000; $i++) {
            $wire .= "*2\r\n:$i\r\n\$" . strlen("v$i") . "\r\nv$i\r\n+ok $i\r\n";
            $expected[] = [$i, "v$i"];
            $expected[] = "ok $i";
        }

        self::assertSame($expected, RespFeeder::chunks(RespFeeder::split($wire, 5, 3000)));
    }

    public function testConsumedBytesAreReleased(): void
    {
        // 32 MB of replies in reads that end inside a header line: without compaction the
        // buffer would keep growing.
        $reply = "\$1000\r\n" . str_repeat('v', 1000) . "\r\n";
        $read = str_repeat($reply, 16) . substr($reply, 0, 3); // ends inside a header line
        $rest = substr($reply, 3);
        $parser = new RespParser();
        $count = 0;
        $baseline = memory_get_usage();
        for ($i = 0; $i < 2000; $i++) {
            $parser->feed($i === 0 ? $read : $rest . $read);
            while ($parser->hasNext()) {
                $parser->next();
                $count++;
            }
        }

        self::assertSame(2000 * 16 + 1999, $count);
        self::assertLessThan(2 * self::MEGABYTE, memory_get_usage() - $baseline);
    }

    public function testFeedingWhileRepliesAreStillBufferedKeepsOrder(): void
    {
        $parser = new RespParser();
        $parser->feed(str_repeat("+a\r\n", 100_000));
        $replies = [];
        while ($parser->hasNext()) {
            $replies[] = $parser->next();
            if (count($replies) % 1000 === 0) {
                $parser->feed(':' . count($replies) . "\r\n");
            }
        }

        self::assertCount(100_100, $replies);
        self::assertSame(array_fill(0, 100_000, 'a'), array_slice($replies, 0, 100_000));
        self::assertSame(range(1000, 100_000, 1000), array_slice($replies, 100_000));
    }

    public function testBulkLongerThanTheLimitIsRefused(): void
    {
        $parser = new RespParser(maxBulkLength: 10);
        $parser->feed("\$10\r\n0123456789\r\n\$11\r\n");

        self::assertSame('0123456789', $parser->next());
        $this->expectException(RedisProtocolException::class);
        $this->expectExceptionMessage("'\$' length 11 exceeds the limit of 10 bytes");
        $parser->hasNext();
    }

    public function testDefaultBulkLimitIsTheSpecMaximum(): void
    {
        $parser = new RespParser();
        $parser->feed("\$536870912\r\n");
        self::assertFalse($parser->hasNext());

        $parser = new RespParser();
        $parser->feed("\$536870913\r\n");
        $this->expectExceptionMessage('exceeds the limit of 536870912 bytes');
        $parser->hasNext();
    }

    public function testLineWithoutCrlfBeyondTheLimitIsRefused(): void
    {
        $parser = new RespParser(maxLineLength: 100);
        $parser->feed('+' . str_repeat('x', 99) . "\r");
        self::assertFalse($parser->hasNext());
        $parser->feed("\n+" . str_repeat('x', 99));
        self::assertSame(str_repeat('x', 99), $parser->next());

        $parser->feed('xx');
        $this->expectExceptionMessage('no CRLF within 100 bytes');
        $parser->hasNext();
    }

    public function testCompleteLineBeyondTheLimitIsRefused(): void
    {
        $parser = new RespParser(maxLineLength: 10);
        $parser->feed("-ERR 678901\r\n");

        $this->expectExceptionMessage('line longer than 10 bytes');
        $parser->hasNext();
    }

    public function testLongLineArrivingInSmallReadsIsNotRescanned(): void
    {
        $length = 4 * self::MEGABYTE;
        $parser = new RespParser(maxLineLength: 2 * $length);
        $chunk = str_repeat('x', 8);
        $start = hrtime(true);
        $parser->feed('+');
        for ($i = 0; $i < $length / 8; $i++) {
            $parser->feed($chunk);
            $parser->hasNext();
        }
        $parser->feed("\r\n");

        self::assertSame(str_repeat('x', $length), $parser->next());
        // Rescanning from the start of the line after each read is ~1e12 byte compares.
        self::assertLessThan(5.0, (hrtime(true) - $start) / 1e9);
    }

    public function testNestingBeyondTheLimitIsRefused(): void
    {
        self::assertSame([[[['x']]]], RespFeeder::whole("*1\r\n*1\r\n*1\r\n+x\r\n", new RespParser(maxDepth: 3)));

        $this->expectExceptionMessage('aggregates nested deeper than 3 levels');
        RespFeeder::whole("*1\r\n%1\r\n~1\r\n>1\r\n+x\r\n", new RespParser(maxDepth: 3));
    }

    public function testDefaultDepthLimit(): void
    {
        $depth = RespParser::DEFAULT_MAX_DEPTH;
        self::assertCount(1, RespFeeder::whole(str_repeat("*1\r\n", $depth) . ":1\r\n"));

        $this->expectException(RedisProtocolException::class);
        RespFeeder::whole(str_repeat("*1\r\n", $depth + 1) . ":1\r\n");
    }

    public function testNullReplyIsDistinctFromNoReply(): void
    {
        $parser = new RespParser();
        self::assertFalse($parser->hasNext());
        $parser->feed("_\r\n\$-1\r\n");

        self::assertTrue($parser->hasNext());
        self::assertNull($parser->next());
        self::assertTrue($parser->hasNext());
        self::assertNull($parser->next());
        self::assertFalse($parser->hasNext());
    }

    public function testHasNextIsIdempotent(): void
    {
        $parser = new RespParser();
        $parser->feed(":1\r\n:2\r\n");

        self::assertTrue($parser->hasNext());
        self::assertTrue($parser->hasNext());
        self::assertSame(1, $parser->next());
        self::assertSame(2, $parser->next());
    }

    public function testNextWithoutACompleteReplyIsAnError(): void
    {
        $parser = new RespParser();
        $parser->feed("+O");

        $this->expectException(\Error::class);
        $this->expectExceptionMessage('call hasNext() first');
        $parser->next();
    }

    public function testEmptyFeedIsHarmless(): void
    {
        $parser = new RespParser();
        $parser->feed('');
        $parser->feed("+O");
        $parser->feed('');
        $parser->feed("K\r\n");

        self::assertSame('OK', $parser->next());
    }

    /** @return iterable<string, array{array<string, int>}> */
    public static function badLimits(): iterable
    {
        yield 'maxBulkLength 0' => [['maxBulkLength' => 0]];
        yield 'maxLineLength -1' => [['maxLineLength' => -1]];
        yield 'maxDepth 0' => [['maxDepth' => 0]];
        yield 'maxBulkLength near PHP_INT_MAX' => [['maxBulkLength' => PHP_INT_MAX]];
    }

    /** @param array<string, int> $limits */
    #[DataProvider('badLimits')]
    public function testLimitsMustBePositive(array $limits): void
    {
        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage((string) array_key_first($limits));

        new RespParser(...$limits);
    }
}
