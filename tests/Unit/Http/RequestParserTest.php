<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\HttpLimits;
use Petrel\Http\Internal\RequestParser;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(RequestParser::class)]
final class RequestParserTest extends TestCase
{
    private const BROWSER_GET = "GET /articles/42?page=2&sort=new HTTP/1.1\r\n"
        . "Host: www.example.com\r\n"
        . "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:124.0) Gecko/20100101 Firefox/124.0\r\n"
        . "Accept: text/html,application/xhtml+xml;q=0.9,*/*;q=0.8\r\n"
        . "Accept-Encoding: gzip, deflate, br\r\n"
        . "Cookie: session=abc\r\n"
        . "Cookie: theme=dark\r\n"
        . "Connection: keep-alive\r\n\r\n";

    private const POST = "POST /submit HTTP/1.1\r\nHost: a\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello world";

    private const CHUNKED = "POST /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        . "5;name=value;flag\r\nhello\r\n"
        . "1 ; spaced=\"quoted ext\"\r\n \r\n"
        . "A\r\n0123456789\r\n"
        . "0\r\nX-Checksum: abc\r\nX-Other:  two \r\n\r\n";

    /** @return iterable<string, array{string}> */
    public static function messages(): iterable
    {
        yield 'browser GET' => [self::BROWSER_GET];
        yield 'POST with Content-Length' => [self::POST];
        yield 'chunked with extensions and trailers' => [self::CHUNKED];
        yield 'three pipelined' => [self::BROWSER_GET . self::POST . self::CHUNKED];
        yield 'leading empty lines' => ["\r\n\r\n" . self::POST . "\r\n" . self::BROWSER_GET];
    }

    #[DataProvider('messages')]
    public function testSameResultWholeByteByByteAndInRandomSplits(string $bytes): void
    {
        $expected = ParserHarness::describeAll(ParserHarness::whole($bytes));
        self::assertNotEmpty($expected);
        self::assertSame($expected, ParserHarness::describeAll(ParserHarness::byteByByte($bytes)));
        for ($seed = 1; $seed <= 20; ++$seed) {
            $pieces = ParserHarness::randomSplit($bytes, $seed);
            self::assertSame($expected, ParserHarness::describeAll(ParserHarness::feedPieces($pieces)), "seed $seed");
        }
    }

    public function testParsesABrowserRequest(): void
    {
        [$request] = ParserHarness::whole(self::BROWSER_GET);
        self::assertSame('GET', $request->getMethod());
        self::assertSame('/articles/42?page=2&sort=new', $request->getTarget());
        self::assertSame('/articles/42', $request->getPath());
        self::assertSame('page=2&sort=new', $request->getQueryString());
        self::assertSame(['page' => '2', 'sort' => 'new'], $request->getQuery());
        self::assertSame('1.1', $request->getProtocolVersion());
        self::assertSame('www.example.com', $request->getHeader('HOST'));
        self::assertSame(['session=abc', 'theme=dark'], $request->getHeaderValues('cookie'));
        self::assertSame('session=abc; theme=dark', $request->getHeader('Cookie'));
        self::assertSame(['session' => 'abc', 'theme' => 'dark'], $request->getCookies());
        self::assertSame('', $request->getBody());
        self::assertTrue($request->isKeepAlive());
    }

    public function testPipelinedRequestsComeOutOneByOneInOrder(): void
    {
        $parser = new RequestParser();
        $parser->feed(self::BROWSER_GET . self::POST . self::CHUNKED);
        self::assertSame('GET', $parser->next()?->getMethod());
        self::assertSame('hello world', $parser->next()?->getBody());
        self::assertSame('hello 0123456789', $parser->next()?->getBody());
        self::assertNull($parser->next());
        self::assertFalse($parser->hasPartialRequest());
    }

    public function testChunkedBodyTrailersAreKeptApartFromHeaders(): void
    {
        [$request] = ParserHarness::whole(self::CHUNKED);
        self::assertSame('hello 0123456789', $request->getBody());
        self::assertSame(16, $request->getBodySize());
        self::assertSame(['x-checksum' => ['abc'], 'x-other' => ['two']], $request->getTrailers());
        self::assertFalse($request->hasHeader('x-checksum'));
    }

    public function testChunkedBodyWithoutTrailers(): void
    {
        $bytes = "PUT /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
        [$request] = ParserHarness::byteByByte($bytes);
        self::assertSame('abc', $request->getBody());
        self::assertSame([], $request->getTrailers());
    }

    public function testContentLengthZeroAndRepeatedEqualContentLength(): void
    {
        $bytes = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n"
            . "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc"
            . "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2, 2\r\n\r\nxy";
        $requests = ParserHarness::whole($bytes);
        self::assertSame(['', 'abc', 'xy'], \array_map(static fn ($r) => $r->getBody(), $requests));
    }

    public function testHeadAndGetWithoutFramingHaveNoBody(): void
    {
        $requests = ParserHarness::whole("HEAD /h HTTP/1.1\r\nHost: a\r\n\r\nGET /g HTTP/1.0\r\n\r\n");
        self::assertSame(['HEAD', 'GET'], \array_map(static fn ($r) => $r->getMethod(), $requests));
        self::assertSame('', $requests[0]->getBody());
        self::assertSame('1.0', $requests[1]->getProtocolVersion());
    }

    public function testRequestTargetForms(): void
    {
        $requests = ParserHarness::whole(
            "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n"
            . "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"
            . "GET http://example.com/p/q?x=1 HTTP/1.1\r\nHost: example.com\r\n\r\n"
            . "PROPFIND /dav HTTP/1.1\r\nHost: a\r\n\r\n",
        );
        self::assertSame(['*', '', '/p/q', '/dav'], \array_map(static fn ($r) => $r->getPath(), $requests));
        self::assertSame('x=1', $requests[2]->getQueryString());
        self::assertSame('PROPFIND', $requests[3]->getMethod());
    }

    /**
     * RFC 9112 §3.2.2: the host of an absolute-form target replaces the Host header, which
     * the application reads (a proxy-style request must not be taken for another host's).
     */
    public function testAnAbsoluteFormTargetsHostIsTheRequestsHost(): void
    {
        $requests = ParserHarness::whole(
            "GET http://real.example:8080/p?x=1 HTTP/1.1\r\nHost: other.example\r\n\r\n"
            . "GET https://real.example HTTP/1.0\r\n\r\n"
            . "GET / HTTP/1.1\r\nHost: a.example\r\n\r\n",
        );
        self::assertSame(['real.example:8080', 'real.example', 'a.example'], \array_map(static fn ($r) => $r->getHeader('host'), $requests));
        self::assertSame(['/p', '/', '/'], \array_map(static fn ($r) => $r->getPath(), $requests));

        foreach ([
            'userinfo' => "GET http://user@real.example/ HTTP/1.1\r\nHost: real.example\r\n\r\n",
            'no Host (1.1)' => "GET http://real.example/ HTTP/1.1\r\n\r\n",
            'two Hosts' => "GET http://real.example/ HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        ] as $case => $bytes) {
            self::assertSame(400, ParserHarness::errorStatus([$bytes]), $case);
        }
    }

    /** @return iterable<string, array{string, bool}> */
    public static function keepAliveCases(): iterable
    {
        yield '1.1 default' => ["GET / HTTP/1.1\r\nHost: a\r\n\r\n", true];
        yield '1.1 close' => ["GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", false];
        yield '1.1 close in a token list, any case' => ["GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade, CLOSE\r\n\r\n", false];
        yield '1.1 keep-alive' => ["GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\n\r\n", true];
        yield '1.0 default' => ["GET / HTTP/1.0\r\n\r\n", false];
        yield '1.0 keep-alive' => ["GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true];
        yield '1.0 keep-alive in a list' => ["GET / HTTP/1.0\r\nConnection: foo ,keep-alive\r\n\r\n", true];
        yield '1.0 keep-alive and close' => ["GET / HTTP/1.0\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n", false];
        yield '1.0 keepalive misspelt' => ["GET / HTTP/1.0\r\nConnection: keepalive\r\n\r\n", false];
    }

    #[DataProvider('keepAliveCases')]
    public function testKeepAliveDecision(string $bytes, bool $keepAlive): void
    {
        [$request] = ParserHarness::whole($bytes);
        self::assertSame($keepAlive, $request->isKeepAlive());
    }

    public function testExpectContinueFlow(): void
    {
        $parser = new RequestParser();
        $parser->feed("PUT /f HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 5\r\n\r\n");
        self::assertNull($parser->next());
        self::assertTrue($parser->isReadingBody());
        self::assertTrue($parser->expectsContinue());
        $parser->continueSent();
        self::assertFalse($parser->expectsContinue(), 'asked once per request');
        $parser->feed('hel');
        self::assertNull($parser->next());
        $parser->feed('lo');
        self::assertSame('hello', $parser->next()?->getBody());
        self::assertFalse($parser->expectsContinue());

        // A second request on the same connection asks again.
        $parser->feed("PUT /g HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n");
        self::assertNull($parser->next());
        self::assertTrue($parser->expectsContinue());
    }

    public function testNoContinueWhenBodyAlreadyStartedOrNotExpected(): void
    {
        $parser = new RequestParser();
        $parser->feed("PUT /f HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhe");
        self::assertNull($parser->next());
        self::assertFalse($parser->expectsContinue());

        $parser = new RequestParser();
        $parser->feed("PUT /f HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
        self::assertNull($parser->next());
        self::assertFalse($parser->expectsContinue(), 'HTTP/1.0 clients do not get 100 Continue');

        $parser = new RequestParser();
        $parser->feed("PUT /f HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n");
        self::assertNotNull($parser->next());
        self::assertFalse($parser->expectsContinue());
    }

    public function testPartialRequestTracking(): void
    {
        $parser = new RequestParser();
        self::assertFalse($parser->hasPartialRequest());
        $parser->feed('GET / HT');
        self::assertNull($parser->next());
        self::assertTrue($parser->hasPartialRequest());
        self::assertFalse($parser->isReadingBody());
        $parser->feed("TP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n");
        self::assertNull($parser->next());
        self::assertTrue($parser->isReadingBody());
        self::assertTrue($parser->hasPartialRequest());
        $parser->feed('ok');
        self::assertSame('ok', $parser->next()?->getBody());
        self::assertFalse($parser->hasPartialRequest());
        self::assertFalse($parser->isReadingBody());
    }

    public function testLargeBodiesAreSpooledToAStream(): void
    {
        $limits = (new HttpLimits())->withBodyMemoryBytes(1024);
        $body = \str_repeat('0123456789abcdef', 512); // 8 KiB
        $bytes = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 8192\r\n\r\n" . $body;
        $chunked = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
            . "1000\r\n" . \substr($body, 0, 4096) . "\r\n1000\r\n" . \substr($body, 4096) . "\r\n0\r\n\r\n";
        foreach ([$bytes, $chunked] as $message) {
            [$request] = ParserHarness::feedPieces(\str_split($message, 1000), $limits);
            self::assertTrue($request->isBodySpooled());
            self::assertSame(8192, $request->getBodySize());
            self::assertSame($body, $request->getBody());
            self::assertSame($body, \stream_get_contents($request->getBodyStream()));
        }
        [$whole] = ParserHarness::whole($bytes, $limits);
        self::assertTrue($whole->isBodySpooled(), 'spooled even when it arrives in one piece');
        self::assertSame($body, $whole->getBody());
        [$small] = ParserHarness::whole("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc", $limits);
        self::assertFalse($small->isBodySpooled());
        self::assertSame('abc', \stream_get_contents($small->getBodyStream()));
    }

    public function testFailureIsSticky(): void
    {
        $parser = new RequestParser();
        $parser->feed("GET / HTTP/9.9\r\n\r\n");
        try {
            $parser->next();
            self::fail('expected an HttpException');
        } catch (\Petrel\Http\HttpException $e) {
            self::assertSame(505, $e->getStatus());
        }
        $parser->feed("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        $this->expectExceptionObject($e);
        $parser->next();
    }

    public function testRemoteAddressAndLimitsReachTheRequest(): void
    {
        $parser = new RequestParser(new HttpLimits(), '10.0.0.1:5555');
        $parser->feed("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        self::assertSame('10.0.0.1:5555', $parser->next()?->getRemoteAddress());
    }

    public function testLargeHeadTricklingInIsScannedIncrementally(): void
    {
        $head = "GET / HTTP/1.1\r\nHost: a\r\n" . \str_repeat("X-Filler: " . \str_repeat('v', 100) . "\r\n", 100) . "\r\n";
        $limits = (new HttpLimits())->withMaxHeaderBytes(64 * 1024)->withMaxHeaderCount(200);
        $start = \hrtime(true);
        [$request] = ParserHarness::byteByByte($head, $limits);
        self::assertCount(100, $request->getHeaderValues('x-filler'));
        self::assertLessThan(2.0, (\hrtime(true) - $start) / 1e9);
    }
}
