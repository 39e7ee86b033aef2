<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\HttpException;
use Petrel\Http\HttpLimits;
use Petrel\Http\Internal\ChunkedDecoder;
use Petrel\Http\Internal\FieldLines;
use Petrel\Http\Internal\RequestParser;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(RequestParser::class)]
#[CoversClass(ChunkedDecoder::class)]
#[CoversClass(FieldLines::class)]
#[CoversClass(HttpException::class)]
final class RequestParserErrorsTest extends TestCase
{
    private const GET = "GET / HTTP/1.1\r\nHost: a\r\n";

    private const CHUNKED = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";

    /** @return iterable<string, array{string, int, 2?: HttpLimits}> */
    public static function malformed(): iterable
    {
        $small = (new HttpLimits())->withMaxRequestLineBytes(64)->withMaxHeaderBytes(256)
            ->withMaxHeaderCount(5)->withMaxBodyBytes(10);

        // Request line.
        yield 'garbage' => ["HELLO\r\n\r\n", 400];
        yield 'binary garbage' => ["\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400];
        yield 'HTTP/0.9 style' => ["GET /\r\n\r\n", 400];
        yield 'double space' => ["GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400];
        yield 'trailing space' => ["GET / HTTP/1.1 \r\nHost: a\r\n\r\n", 400];
        yield 'tab separator' => ["GET\t/ HTTP/1.1\r\nHost: a\r\n\r\n", 400];
        yield 'lowercase version' => ["GET / http/1.1\r\nHost: a\r\n\r\n", 400];
        yield 'malformed version' => ["GET / HTTP/1.1.1\r\nHost: a\r\n\r\n", 400];
        yield 'bad method' => ["G(T / HTTP/1.1\r\nHost: a\r\n\r\n", 400];
        yield 'relative target' => ["GET index.html HTTP/1.1\r\nHost: a\r\n\r\n", 400];
        yield 'asterisk for GET' => ["GET * HTTP/1.1\r\nHost: a\r\n\r\n", 400];
        yield 'CONNECT without port' => ["CONNECT example.com HTTP/1.1\r\nHost: a\r\n\r\n", 400];
        yield 'NUL in target' => ["GET /\0 HTTP/1.1\r\nHost: a\r\n\r\n", 400];
        yield 'HTTP/2 preface' => ["PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505];
        yield 'HTTP/2.0' => ["GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505];
        yield 'HTTP/3.0' => ["GET / HTTP/3.0\r\nHost: a\r\n\r\n", 505];
        yield 'HTTP/1.2' => ["GET / HTTP/1.2\r\nHost: a\r\n\r\n", 505];
        yield 'too long URI' => ['GET /' . \str_repeat('a', 8200) . " HTTP/1.1\r\nHost: a\r\n\r\n", 414];
        yield 'too long URI, small limit' => ['GET /' . \str_repeat('a', 70) . " HTTP/1.1\r\n\r\n", 414, $small];

        // Header fields.
        yield 'space before colon' => [self::GET . "X-A : b\r\n\r\n", 400];
        yield 'tab before colon' => [self::GET . "X-A\t: b\r\n\r\n", 400];
        yield 'obs-fold' => [self::GET . "X-A: b\r\n  c\r\n\r\n", 400];
        yield 'obs-fold with tab' => [self::GET . "X-A: b\r\n\tc\r\n\r\n", 400];
        yield 'line without colon' => [self::GET . "X-A b\r\n\r\n", 400];
        yield 'empty field name' => [self::GET . ": b\r\n\r\n", 400];
        yield 'invalid field name' => [self::GET . "X(A): b\r\n\r\n", 400];
        yield 'NUL in value' => [self::GET . "X-A: b\0c\r\n\r\n", 400];
        yield 'CTL in value' => [self::GET . "X-A: b\x01c\r\n\r\n", 400];
        yield 'DEL in value' => [self::GET . "X-A: b\x7fc\r\n\r\n", 400];
        yield 'bare LF in head' => ["GET / HTTP/1.1\nHost: a\r\n\r\n", 400];
        yield 'bare CR in value' => [self::GET . "X-A: b\rc\r\n\r\n", 400];
        yield 'missing Host on HTTP/1.1' => ["GET / HTTP/1.1\r\nX-A: b\r\n\r\n", 400];
        yield 'two Host headers' => [self::GET . "Host: b\r\n\r\n", 400];
        // A Host that would move a URI built from it (the PSR bridge's path, its userinfo).
        yield 'Host with a path' => ["GET /public HTTP/1.1\r\nHost: app.example/admin\r\n\r\n", 400];
        yield 'Host with a query' => ["GET /public HTTP/1.1\r\nHost: app.example?\r\n\r\n", 400];
        yield 'Host with userinfo' => ["GET / HTTP/1.1\r\nHost: evil.example@app.example\r\n\r\n", 400];
        yield 'Host with a backslash' => ["GET / HTTP/1.1\r\nHost: a\\b\r\n\r\n", 400];
        yield 'too many headers' => [self::GET . \str_repeat("X-A: b\r\n", 100) . "\r\n", 431];
        yield 'too many headers, small limit' => [self::GET . \str_repeat("X-A: b\r\n", 5) . "\r\n", 431, $small];
        yield 'oversized head' => [self::GET . 'X-A: ' . \str_repeat('b', 16400) . "\r\n\r\n", 431];
        yield 'oversized head, never ending' => [self::GET . \str_repeat("X: b\r\n", 60), 431, $small];

        // Framing.
        yield 'CL and TE' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400];
        yield 'TE and CL' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", 400];
        yield 'two different CLs' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400];
        yield 'CL list with different values' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 4\r\n\r\nabcd", 400];
        yield 'negative CL' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400];
        yield 'plus-signed CL' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +3\r\n\r\nabc", 400];
        yield 'non-digit CL' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3a\r\n\r\nabc", 400];
        yield 'hex CL' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x3\r\n\r\nabc", 400];
        yield 'empty CL' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", 400];
        yield 'huge CL' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999999\r\n\r\n", 413];
        yield 'gzip, chunked' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501];
        yield 'identity' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n", 501];
        yield 'chunked twice' => ["POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 501];
        yield 'TE on HTTP/1.0' => ["POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400];

        // Chunked bodies.
        yield 'chunk size garbage' => [self::CHUNKED . "zz\r\nhello\r\n0\r\n\r\n", 400];
        yield 'chunk size with 0x' => [self::CHUNKED . "0x5\r\nhello\r\n0\r\n\r\n", 400];
        yield 'chunk size with sign' => [self::CHUNKED . "+5\r\nhello\r\n0\r\n\r\n", 400];
        yield 'chunk size with trailing space' => [self::CHUNKED . "5 \r\nhello\r\n0\r\n\r\n", 400];
        yield 'empty chunk size' => [self::CHUNKED . "\r\nhello\r\n0\r\n\r\n", 400];
        yield 'chunk size overflow' => [self::CHUNKED . "ffffffffffffffffffff\r\nhello\r\n", 400];
        yield 'chunk size over int64' => [self::CHUNKED . "10000000000000000\r\nhello\r\n", 400];
        yield 'chunk extension with bare LF' => [self::CHUNKED . "5;a=\nb\r\nhello\r\n0\r\n\r\n", 400];
        yield 'chunk size line too long' => [self::CHUNKED . '5;' . \str_repeat('x', 5000) . "\r\nhello\r\n0\r\n\r\n", 400];
        yield 'chunk data longer than size' => [self::CHUNKED . "5\r\nhelloX\r\n0\r\n\r\n", 400];
        yield 'chunk data with bare LF' => [self::CHUNKED . "5\r\nhello\n0\r\n\r\n", 400];
        yield 'trailer with obs-fold' => [self::CHUNKED . "0\r\nX-T: a\r\n b\r\n\r\n", 400];
        yield 'trailer with NUL' => [self::CHUNKED . "0\r\nX-T: a\0\r\n\r\n", 400];
        yield 'too many trailers' => [self::CHUNKED . "0\r\n" . \str_repeat("X-T: a\r\n", 6) . "\r\n", 431, $small];
        yield 'trailers too large' => [self::CHUNKED . "0\r\nX-T: " . \str_repeat('a', 300) . "\r\n\r\n", 431, $small];

        // Body size.
        yield 'oversized body by Content-Length' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n", 413, $small];
        yield 'oversized body by default limit' => ["POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 33554433\r\n\r\n", 413];
        yield 'oversized body by chunks' => [self::CHUNKED . "6\r\nhello!\r\n5\r\nworld\r\n0\r\n\r\n", 413, $small];
        yield 'oversized single chunk' => [self::CHUNKED . "b\r\n", 413, $small];
    }

    #[DataProvider('malformed')]
    public function testMalformedInputIsRejectedWholeAndByteByByte(string $bytes, int $status, ?HttpLimits $limits = null): void
    {
        self::assertSame($status, ParserHarness::errorStatus([$bytes], $limits), 'fed whole');
        self::assertSame($status, ParserHarness::errorStatus(\str_split($bytes), $limits), 'fed byte by byte');
    }

    public function testMaxBodyIsInclusive(): void
    {
        $limits = (new HttpLimits())->withMaxBodyBytes(10);
        self::assertCount(1, ParserHarness::whole("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789", $limits));
        $chunked = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n";
        self::assertCount(1, ParserHarness::whole($chunked, $limits));
    }

    public function testHeadLimitsAreInclusive(): void
    {
        $limits = (new HttpLimits())->withMaxHeaderBytes(64)->withMaxRequestLineBytes(20);
        $head = "GET /123456789 HTTP/1.1\r\nHost: a\r\n"; // request line: 23 bytes
        self::assertSame(414, ParserHarness::errorStatus([$head . "\r\n"], $limits));
        self::assertSame(414, ParserHarness::errorStatus(\str_split($head . "\r\n"), $limits));
        $exact = "GET /123456 HTTP/1.1\r\nHost: a\r\n\r\n"; // request line: exactly 20 bytes
        self::assertCount(1, ParserHarness::byteByByte($exact, $limits));
        self::assertCount(1, ParserHarness::whole($exact, $limits));
        $over = "GET /1234567 HTTP/1.1\r\nHost: a\r\n\r\n"; // 21 bytes
        self::assertSame(414, ParserHarness::errorStatus([$over], $limits));
        self::assertSame(414, ParserHarness::errorStatus(\str_split($over), $limits));
        $head = "GET /1234 HTTP/1.1\r\nHost: a\r\n"; // request line: 18 bytes
        $head .= 'X: ' . \str_repeat('v', 64 - \strlen($head) - 7) . "\r\n\r\n";
        self::assertSame(64, \strlen($head));
        self::assertCount(1, ParserHarness::whole($head, $limits));
        self::assertCount(1, ParserHarness::byteByByte($head, $limits));
        self::assertSame(431, ParserHarness::errorStatus([\str_replace('X: ', 'X: v', $head)], $limits));
    }

    public function testExceptionCarriesAShortReason(): void
    {
        try {
            ParserHarness::whole("GET / HTTP/1.1\r\nHost: a\r\nX-A : b\r\n\r\n");
            self::fail('expected an HttpException');
        } catch (HttpException $e) {
            self::assertSame(400, $e->getStatus());
            self::assertSame('Whitespace between header name and colon', $e->getReason());
        }
    }
}
