<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Redis;

use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Petrel\Redis\Internal\RespParser;
use Petrel\Redis\RedisProtocolException;

/**
 * take(): a read decoded at once when it is one whole common reply, else fed as by feed().
 * Whatever it does, the replies and errors that come out are those of feed() + next().
 */
#[CoversClass(RespParser::class)]
final class RespParserTakeTest extends TestCase
{
    /** @return iterable<string, array{string}> */
    public static function streams(): iterable
    {
        foreach (RespParserTypesTest::replies() as $name => [$wire]) {
            yield $name => [$wire];
        }
        foreach (RespParserAggregateTest::streams() as $name => [$wire]) {
            yield "aggregate: {$name}" => [$wire];
        }
        yield 'two bulk strings in one read' => ["\$1\r\na\r\n\$1\r\nb\r\n"];
        yield 'bulk string cut short' => ["\$5\r\nhel"];
        yield 'bulk string with bytes after it' => ["\$1\r\na\r\n+"];
        yield 'bulk string not ended by CRLF' => ["\$1\r\nab\r"];
        yield 'bulk length with a plus sign' => ["\$+1\r\na\r\n"];
        yield 'bulk length with a leading zero' => ["\$01\r\na\r\n"];
        yield 'null bulk with bytes after it' => ["\$-1\r\n:1\r\n"];
        yield 'integer not canonical' => [":007\r\n"];
        yield 'integer out of range' => [":9223372036854775808\r\n"];
        yield 'simple string then more' => ["+OK\r\n+OK\r\n"];
        yield 'bare LF' => ["+OK\n"];
        yield 'LF first' => ["\n+OK\r\n"];
        yield 'CR LF first' => ["\r\n"];
        yield 'RESP3 false' => ["#f\r\n"];
    }

    #[DataProvider('streams')]
    public function testSameOutcomeAsFeed(string $wire): void
    {
        self::assertSame(RespFeeder::outcome([$wire]), self::takeOutcome([$wire]));
        self::assertSame(RespFeeder::outcome([$wire, $wire]), self::takeOutcome([$wire, $wire]), 'taken twice in a row');
    }

    public function testCommonRepliesAreTakenWhole(): void
    {
        $parser = new RespParser();
        self::assertSame('hello', $parser->take("\$5\r\nhello\r\n"));
        self::assertNull($parser->take("\$-1\r\n"));
        self::assertSame('OK', $parser->take("+OK\r\n"));
        self::assertSame(-42, $parser->take(":-42\r\n"));
        self::assertFalse($parser->hasNext());
    }

    public function testFalseMeansFedAndNextHasTheReply(): void
    {
        $parser = new RespParser();
        self::assertFalse($parser->take("#f\r\n"));
        self::assertTrue($parser->hasNext());
        self::assertFalse($parser->next());
        self::assertFalse($parser->take("*1\r\n:1\r\n"));
        self::assertSame([1], $parser->next());
    }

    public function testAReplyAlreadyBufferedComesFirst(): void
    {
        $parser = new RespParser();
        $parser->feed("+first\r\n");
        self::assertTrue($parser->hasNext());
        self::assertFalse($parser->take("+second\r\n"));
        self::assertSame('first', $parser->next());
        self::assertSame('second', $parser->next());
    }

    public function testTheRestOfAPartialReplyIsNotTakenForAWholeOne(): void
    {
        $parser = new RespParser();
        $parser->feed("*2\r\n+a\r\n");
        self::assertFalse($parser->hasNext());
        self::assertFalse($parser->take("+b\r\n"));
        self::assertSame(['a', 'b'], $parser->next());

        $parser->feed("\$5\r\nhel");
        self::assertFalse($parser->hasNext());
        self::assertFalse($parser->take("lo\r\n"));
        self::assertSame('hello', $parser->next());
    }

    public function testLimitsStillApply(): void
    {
        $parser = new RespParser(maxBulkLength: 4);
        self::assertFalse($parser->take("\$5\r\nhello\r\n"));
        $this->expectException(RedisProtocolException::class);
        $this->expectExceptionMessage('exceeds the limit of 4 bytes');
        $parser->hasNext();
    }

    public function testLineLimitStillApplies(): void
    {
        $parser = new RespParser(maxLineLength: 3);
        self::assertSame('ab', $parser->take("+ab\r\n")); // the limit counts the type byte
        self::assertFalse($parser->take("+abc\r\n"));
        $this->expectException(RedisProtocolException::class);
        $this->expectExceptionMessage('line longer than 3 bytes');
        $parser->hasNext();
    }

    public function testErrorOffsetsCountTakenBytes(): void
    {
        $fed = new RespParser();
        $fed->feed("\$1\r\na\r\n");
        $fed->next();
        $fed->feed("?\r\n");
        $taken = new RespParser();
        self::assertSame('a', $taken->take("\$1\r\na\r\n"));
        $taken->feed("?\r\n");
        try {
            $fed->hasNext();
            self::fail('no error');
        } catch (RedisProtocolException $e) {
            self::assertStringContainsString('stream offset 7', $e->getMessage());
            $this->expectExceptionMessage($e->getMessage());
        }
        $taken->hasNext();
    }

    public function testAFailedParserTakesNothing(): void
    {
        $parser = new RespParser();
        $parser->feed("?\r\n");
        try {
            $parser->hasNext();
        } catch (RedisProtocolException) {
        }
        self::assertFalse($parser->take("+OK\r\n"));
        $this->expectException(RedisProtocolException::class);
        $parser->hasNext();
    }

    /**
     * take() for each read, then drain as RespFeeder::outcome() does after feed().
     *
     * @param list<string> $chunks
     * @return array{replies: list<mixed>, error: ?string}
     */
    public static function takeOutcome(array $chunks, ?RespParser $parser = null): array
    {
        $parser ??= new RespParser();
        $replies = [];
        try {
            foreach ($chunks as $chunk) {
                $reply = $parser->take($chunk);
                if ($reply !== false) {
                    $replies[] = RespFeeder::normalize($reply);
                }
                while ($parser->hasNext()) {
                    $replies[] = RespFeeder::normalize($parser->next());
                }
            }
        } catch (RedisProtocolException $e) {
            return ['replies' => $replies, 'error' => $e->getMessage()];
        }

        return ['replies' => $replies, 'error' => null];
    }
}
