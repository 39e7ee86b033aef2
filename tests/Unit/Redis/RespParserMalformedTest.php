<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Redis;

use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Petrel\Redis\Internal\RespParser;
use Petrel\Redis\Internal\RespScalars;
use Petrel\Redis\RedisProtocolException;

/** Malformed input is a RedisProtocolException, however the bytes are split. */
#[CoversClass(RespParser::class)]
#[CoversClass(RespScalars::class)]
final class RespParserMalformedTest extends TestCase
{
    /** @return iterable<string, array{string, string}> wire bytes and a fragment of the expected message */
    public static function malformed(): iterable
    {
        yield 'unknown type byte' => ["?foo\r\n", 'unknown type byte 0x3f'];
        yield 'letter as type byte' => ["OK\r\n", 'unknown type byte 0x4f'];
        yield 'empty line' => ["\r\n", 'unknown type byte 0x0d'];
        yield 'streamed string chunk type' => [";4\r\nHell\r\n", 'unknown type byte 0x3b'];
        yield 'bare LF after simple string' => ["+OK\n", 'bare LF'];
        yield 'bare LF after integer' => [":1\n+OK\r\n", 'bare LF'];
        yield 'LF as type byte' => ["+OK\r\n\n", 'bare LF'];
        yield 'bulk length not a number' => ["\$abc\r\nabc\r\n", 'invalid length "abc"'];
        yield 'bulk length empty' => ["\$\r\n\r\n", 'invalid length ""'];
        yield 'bulk length with sign' => ["\$+3\r\nfoo\r\n", 'invalid length "+3"'];
        yield 'bulk length with leading zero' => ["\$03\r\nfoo\r\n", 'invalid length "03"'];
        yield 'bulk length with space' => ["\$3 \r\nfoo\r\n", 'invalid length "3 "'];
        yield 'bulk negative length' => ["\$-2\r\n", 'invalid length "-2"'];
        yield 'bulk length overflows' => ["\$99999999999999999999\r\n", 'invalid length'];
        yield 'bulk not followed by CRLF' => ["\$3\r\nfooXY", 'not followed by CRLF'];
        yield 'bulk longer than declared' => ["\$3\r\nfoo!\r\n", 'not followed by CRLF'];
        yield 'bulk shorter than declared' => ["\$5\r\nfoo\r\n:1\r\n", 'not followed by CRLF'];
        yield 'blob error not followed by CRLF' => ["!3\r\nERRxx", 'not followed by CRLF'];
        yield 'blob error length -1' => ["!-1\r\n", 'invalid length "-1"'];
        yield 'verbatim without format prefix' => ["=3\r\nabc\r\n", 'verbatim'];
        yield 'verbatim without colon' => ["=8\r\ntxt-abcd\r\n", 'verbatim'];
        yield 'array length not a number' => ["*x\r\n", 'invalid length "x"'];
        yield 'array negative length' => ["*-2\r\n", 'invalid length "-2"'];
        yield 'map length -1' => ["%-1\r\n", 'invalid length "-1"'];
        yield 'set length -1' => ["~-1\r\n", 'invalid length "-1"'];
        yield 'push length -1' => [">-1\r\n", 'invalid length "-1"'];
        yield 'array longer than any memory' => ["*4294967296\r\n", "'*' of 4294967296 elements exceeds the limit of 4294967295"];
        yield 'map length that would overflow' => ["%9223372036854775807\r\n", "'%' of 9223372036854775807 elements exceeds the limit"];
        yield 'attribute length not a number' => ["|a\r\n", 'invalid length "a"'];
        yield 'integer not a number' => [":abc\r\n", 'invalid integer "abc"'];
        yield 'integer empty' => [":\r\n", 'invalid integer ""'];
        yield 'integer with fraction' => [":1.5\r\n", 'invalid integer "1.5"'];
        yield 'integer with trailing space' => [":12 \r\n", 'invalid integer "12 "'];
        yield 'integer above 64 bits' => [":9223372036854775808\r\n", 'invalid integer'];
        yield 'integer below 64 bits' => [":-9223372036854775809\r\n", 'invalid integer'];
        yield 'integer sign only' => [":-\r\n", 'invalid integer "-"'];
        yield 'boolean not t or f' => ["#x\r\n", "invalid '#' value \"x\""];
        yield 'boolean spelled out' => ["#true\r\n", "invalid '#' value"];
        yield 'null with payload' => ["_x\r\n", "invalid '_' value"];
        yield 'double not a number' => [",abc\r\n", "invalid ',' value"];
        yield 'double starting with a dot' => [",.5\r\n", "invalid ',' value"];
        yield 'double with empty fraction' => [",1.\r\n", "invalid ',' value"];
        yield 'double empty' => [",\r\n", "invalid ',' value"];
        yield 'big number with letters' => ["(12a\r\n", "invalid '(' value"];
        yield 'big number with fraction' => ["(1.5\r\n", "invalid '(' value"];
        yield 'streamed string' => ["\$?\r\n;4\r\nHell\r\n;0\r\n", "streamed '\$?' replies are not supported"];
        yield 'streamed array' => ["*?\r\n:1\r\n.\r\n", "streamed '*?' replies are not supported"];
        yield 'streamed map' => ["%?\r\n", "streamed '%?' replies are not supported"];
        yield 'malformed inside an array' => ["*2\r\n:1\r\n:x\r\n", 'invalid integer "x"'];
        yield 'malformed inside a map' => ["%1\r\n+k\r\n\$-5\r\n", 'invalid length "-5"'];
        yield 'garbage after a good reply' => ["+OK\r\n\x00\x01\r\n", 'unknown type byte 0x00'];
    }

    #[DataProvider('malformed')]
    public function testWhole(string $wire, string $message): void
    {
        $this->expectException(RedisProtocolException::class);
        $this->expectExceptionMessage($message);

        RespFeeder::whole($wire);
    }

    #[DataProvider('malformed')]
    public function testByteByByte(string $wire, string $message): void
    {
        $this->expectException(RedisProtocolException::class);
        $this->expectExceptionMessage($message);

        RespFeeder::byteByByte($wire);
    }

    public function testMessageNamesTheStreamOffset(): void
    {
        $parser = new RespParser();
        $parser->feed("+OK\r\n:1\r\n:x\r\n");

        self::assertSame('OK', $parser->next());
        self::assertSame(1, $parser->next());
        $this->expectExceptionMessage('Invalid RESP reply at stream offset 9: invalid integer "x"');
        $parser->hasNext();
    }

    public function testOffsetCountsBytesAlreadyDropped(): void
    {
        $parser = new RespParser();
        $parser->feed("+OK\r\n");
        self::assertSame('OK', $parser->next());
        $parser->feed(":1\r\n#z\r\n");
        self::assertSame(1, $parser->next());

        $this->expectExceptionMessage('at stream offset 9:');
        $parser->hasNext();
    }

    public function testUnprintableBytesAreEscapedAndLongValuesCut(): void
    {
        $this->expectExceptionMessage('invalid integer "\000\r\\\\' . str_repeat('9', 29) . '…"');

        RespFeeder::whole(":\0\r\\" . str_repeat('9', 60) . "\r\n");
    }

    public function testFailureIsSticky(): void
    {
        $parser = new RespParser();
        $parser->feed("#x\r\n+OK\r\n");
        try {
            $parser->hasNext();
            self::fail('expected a RedisProtocolException');
        } catch (RedisProtocolException $first) {
        }

        $parser->feed("+more\r\n");
        try {
            $parser->next();
            self::fail('expected the same RedisProtocolException again');
        } catch (RedisProtocolException $again) {
            self::assertSame($first, $again);
        }
    }

    public function testIncompleteInputIsNotAnError(): void
    {
        $wire = "*3\r\n\$5\r\nhello\r\n%1\r\n+k\r\n,1.5\r\n|1\r\n+a\r\n:1\r\n=8\r\ntxt:abcd\r\n";
        for ($cut = 0; $cut < strlen($wire); $cut++) {
            $parser = new RespParser();
            $parser->feed(substr($wire, 0, $cut));
            self::assertFalse($parser->hasNext(), "cut at $cut");
        }
    }
}
