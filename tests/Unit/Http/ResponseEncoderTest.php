<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\Cookie;
use Petrel\Http\FileBody;
use Petrel\Http\Internal\DateCache;
use Petrel\Http\Internal\ResponseEncoder;
use Petrel\Http\Response;
use Petrel\Http\StreamBody;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

#[CoversClass(ResponseEncoder::class)]
#[CoversClass(DateCache::class)]
final class ResponseEncoderTest extends TestCase
{
    private const DATE = 'Sun, 06 Nov 1994 08:49:37 GMT';

    private ResponseEncoder $encoder;

    protected function setUp(): void
    {
        $this->encoder = new ResponseEncoder();
    }

    public function testStringBodyGetsContentLength(): void
    {
        self::assertSame(
            "HTTP/1.1 200 OK\r\nDate: " . self::DATE . "\r\nContent-Type: text/plain; charset=utf-8\r\n"
            . "Content-Length: 13\r\n\r\nHello, World!",
            $this->encoder->encode(Response::text('Hello, World!'), '1.1', true, false, self::DATE),
        );
    }

    public function testHeadKeepsContentLengthButSendsNoBody(): void
    {
        $response = Response::text('Hello, World!');
        $head = $this->encoder->encode($response, '1.1', true, true, self::DATE);
        self::assertStringEndsWith("Content-Length: 13\r\n\r\n", $head);
        self::assertFalse(ResponseEncoder::sendsBody($response, true));
        self::assertTrue(ResponseEncoder::sendsBody($response, false));

        // A HEAD handler may state the length itself.
        $stated = Response::empty(200)->withHeader('Content-Length', '1234');
        self::assertStringContainsString("Content-Length: 1234\r\n", $this->encoder->encodeHead($stated, '1.1', true, true, self::DATE));
        self::assertStringContainsString("Content-Length: 0\r\n", $this->encoder->encodeHead($stated, '1.1', true, false, self::DATE));
        // A bridge (Symfony's prepare(), Slim) empties a HEAD answer's body: "Content-Length: 0"
        // would be a lie about the GET's; none is said.
        $emptied = Response::html('');
        self::assertStringNotContainsString('Content-Length', $this->encoder->encodeHead($emptied, '1.1', true, true, self::DATE));
        self::assertStringNotContainsString('Transfer-Encoding', $this->encoder->encodeHead($emptied, '1.1', true, true, self::DATE));
        self::assertStringContainsString("Content-Length: 0\r\n", $this->encoder->encodeHead($emptied, '1.1', true, false, self::DATE), 'a GET of it says 0');

        $stream = Response::stream(['x']);
        $head = $this->encoder->encodeHead($stream, '1.1', true, true, self::DATE);
        self::assertStringNotContainsString('Transfer-Encoding', $head);
        self::assertFalse($this->encoder->usesChunking($stream, '1.1', true));
        self::assertFalse($this->encoder->requiresClose($stream, '1.0', true, true));
    }

    public function testNoFramingOrBodyFor204And304And1xx(): void
    {
        foreach ([204, 304, 101] as $status) {
            $response = (new Response($status, [], 'ignored'))->withHeader('Content-Length', '7');
            $encoded = $this->encoder->encode($response, '1.1', true, false, self::DATE);
            self::assertStringNotContainsString('Content-Length', $encoded, (string) $status);
            self::assertStringNotContainsString('Transfer-Encoding', $encoded, (string) $status);
            self::assertStringEndsWith("\r\n\r\n", $encoded);
            self::assertFalse(ResponseEncoder::sendsBody($response, false));
        }
        self::assertSame("HTTP/1.1 304 Not Modified\r\nDate: " . self::DATE . "\r\nETag: \"x\"\r\n\r\n",
            $this->encoder->encode(Response::empty(304)->withHeader('ETag', '"x"'), '1.1', true, false, self::DATE));
    }

    public function testStreamBodyIsChunkedOnHttp11AndClosesOnHttp10(): void
    {
        $response = Response::stream(['a', 'b'], 'text/plain');
        $head = $this->encoder->encodeHead($response, '1.1', true, false, self::DATE);
        self::assertStringContainsString("Transfer-Encoding: chunked\r\n", $head);
        self::assertStringNotContainsString('Connection', $head);
        self::assertTrue($this->encoder->usesChunking($response, '1.1'));
        self::assertFalse($this->encoder->requiresClose($response, '1.1', true));
        self::assertSame($head, $this->encoder->encode($response, '1.1', true, false, self::DATE), 'encode() returns only the head');

        $head = $this->encoder->encodeHead($response, '1.0', true, false, self::DATE);
        self::assertStringNotContainsString('Transfer-Encoding', $head);
        self::assertStringNotContainsString('Content-Length', $head);
        self::assertStringContainsString("Connection: close\r\n", $head);
        self::assertFalse($this->encoder->usesChunking($response, '1.0'));
        self::assertTrue($this->encoder->requiresClose($response, '1.0', true));

        $known = new Response(200, [], new StreamBody(['abc'], 3));
        self::assertStringContainsString("Content-Length: 3\r\n", $this->encoder->encodeHead($known, '1.0', true, false, self::DATE));
        self::assertFalse($this->encoder->usesChunking($known, '1.1'));
        self::assertFalse($this->encoder->requiresClose($known, '1.0', true));
    }

    public function testChunkFraming(): void
    {
        self::assertSame("5\r\nhello\r\n", ResponseEncoder::chunk('hello'));
        self::assertSame("1a\r\n" . \str_repeat('x', 26) . "\r\n", ResponseEncoder::chunk(\str_repeat('x', 26)));
        self::assertSame('', ResponseEncoder::chunk(''));
        self::assertSame("0\r\n\r\n", ResponseEncoder::lastChunk());
    }

    public function testFileBodyGetsItsLength(): void
    {
        $response = new Response(206, [], new FileBody(__FILE__, 10, 100));
        self::assertStringContainsString("Content-Length: 100\r\n", $this->encoder->encodeHead($response, '1.1', true, false, self::DATE));
        self::assertFalse($this->encoder->usesChunking($response, '1.1'));
    }

    public function testConnectionHeaders(): void
    {
        $response = Response::text('x');
        self::assertStringContainsString("Connection: keep-alive\r\n", $this->encoder->encodeHead($response, '1.0', true, false, self::DATE));
        self::assertStringContainsString("Connection: close\r\n", $this->encoder->encodeHead($response, '1.0', false, false, self::DATE));
        self::assertStringContainsString("Connection: close\r\n", $this->encoder->encodeHead($response, '1.1', false, false, self::DATE));
        self::assertStringNotContainsString('Connection', $this->encoder->encodeHead($response, '1.1', true, false, self::DATE));

        $closing = $response->withHeader('Connection', 'Close');
        self::assertTrue($this->encoder->requiresClose($closing, '1.1', true));
        self::assertSame(1, \substr_count($this->encoder->encodeHead($closing, '1.1', true, false, self::DATE), 'onnection'));
        self::assertFalse($this->encoder->requiresClose($response->withHeader('Connection', 'keep-alive'), '1.1', true));
    }

    public function testUserFramingHeadersAreReplacedAndOthersKept(): void
    {
        $response = Response::text('four')
            ->withHeader('Content-Length', '999')
            ->withHeader('Transfer-Encoding', 'gzip')
            ->withHeader('Date', 'Mon, 01 Jan 2024 00:00:00 GMT')
            ->withAddedHeader('X-Many', ['1', '2']);
        $encoded = $this->encoder->encode($response, '1.1', true, false, self::DATE);
        self::assertStringContainsString("Content-Length: 4\r\n", $encoded);
        self::assertStringNotContainsString('999', $encoded);
        self::assertStringNotContainsString('Transfer-Encoding', $encoded);
        self::assertStringContainsString("Date: Mon, 01 Jan 2024 00:00:00 GMT\r\n", $encoded);
        self::assertStringNotContainsString(self::DATE, $encoded);
        self::assertStringContainsString("X-Many: 1\r\nX-Many: 2\r\n", $encoded);
    }

    /**
     * Response keeps one value as a string and more as a list: every way of setting a
     * header gives the same lines, in the order set, and the same getHeaders().
     */
    public function testOneValueOrManyGiveOneLineEachInOrder(): void
    {
        $response = (new Response(200, ['X-One' => ['a'], 'X-Two' => ['b', 'c'], 'x-two' => 'd']))
            ->withAddedHeader('x-one', 'e')
            ->withHeader('X-Three', ['f'])
            ->withAddedHeader('X-Four', ['g', 'h'])
            ->withHeader('X-Five', 5)
            ->withAddedHeader('X-Five', [6]);
        self::assertStringContainsString(
            "X-One: a\r\nX-One: e\r\nX-Two: b\r\nX-Two: c\r\nX-Two: d\r\nX-Three: f\r\nX-Four: g\r\nX-Four: h\r\nX-Five: 5\r\nX-Five: 6\r\n",
            $this->encoder->encode($response, '1.1', true, false, self::DATE),
        );
        self::assertSame(
            ['X-One' => ['a', 'e'], 'X-Two' => ['b', 'c', 'd'], 'X-Three' => ['f'], 'X-Four' => ['g', 'h'], 'X-Five' => ['5', '6']],
            $response->getHeaders(),
        );
        self::assertSame('b, c, d', $response->getHeader('x-two'));
        self::assertSame('f', $response->getHeader('x-three'));

        self::assertTrue($this->encoder->requiresClose(Response::text('')->withHeader('Connection', ['keep-alive', 'close']), '1.1', true));
        self::assertFalse($this->encoder->requiresClose(Response::text('')->withHeader('Connection', ['keep-alive']), '1.1', true));
        $stated = Response::empty(200)->withHeader('Content-Length', ['12']);
        self::assertStringContainsString("Content-Length: 12\r\n", $this->encoder->encodeHead($stated, '1.1', true, true, self::DATE));
    }

    public function testOneSetCookieLinePerCookie(): void
    {
        $response = Response::text('')
            ->withCookie(new Cookie('a', '1'))
            ->withCookie(new Cookie('b', '2', httpOnly: false, sameSite: null))
            ->withAddedHeader('Set-Cookie', 'raw=3');
        $head = $this->encoder->encodeHead($response, '1.1', true, false, self::DATE);
        self::assertStringContainsString(
            "Set-Cookie: raw=3\r\nSet-Cookie: a=1; Path=/; HttpOnly; SameSite=Lax\r\nSet-Cookie: b=2; Path=/\r\n",
            $head,
        );
    }

    public function testServerHeaderAndUnknownStatus(): void
    {
        $encoder = new ResponseEncoder('Petrel');
        self::assertStringStartsWith(
            "HTTP/1.1 299 \r\nServer: Petrel\r\nDate: ",
            $encoder->encodeHead(new Response(299), '1.1', true, false, self::DATE),
        );
        self::assertStringNotContainsString(
            'Petrel',
            $encoder->encodeHead(Response::text('')->withHeader('Server', 'Mine'), '1.1', true, false, self::DATE),
        );
        $this->expectException(\ValueError::class);
        new ResponseEncoder("Petrel\r\nX: y");
    }

    public function testDateCache(): void
    {
        self::assertSame(self::DATE, DateCache::get(784111777));
        self::assertSame('Thu, 01 Jan 1970 00:00:00 GMT', DateCache::get(0));
        self::assertMatchesRegularExpression('/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/', DateCache::get());
    }

    public function testTheLinesReusedFromTheLastResponseFollowTheDateAndTheLength(): void
    {
        $later = 'Sun, 06 Nov 1994 08:49:38 GMT';
        $head = fn (Response $response, string $date, bool $isHead = false): string => $this->encoder->encodeHead($response, '1.1', true, $isHead, $date);
        self::assertStringContainsString("Date: " . self::DATE . "\r\n", $head(Response::text('one'), self::DATE));
        self::assertStringContainsString("Date: {$later}\r\n", $head(Response::text('one'), $later));
        self::assertStringContainsString("Content-Length: 3\r\n", $head(Response::text('two'), $later));
        self::assertStringContainsString("Content-Length: 5\r\n", $head(Response::text('three'), $later));
        $stated = Response::empty(200)->withHeader('Content-Length', '5');
        self::assertStringContainsString("Content-Length: 5\r\n", $head($stated, $later, true));
        self::assertStringContainsString("Content-Length: 0\r\n", $head($stated, $later));
        $dated = Response::text('x')->withHeader('Date', self::DATE);
        self::assertSame(1, \substr_count($head($dated, $later), 'Date: '), "the handler's own Date only");
    }

    public function testContinueLine(): void
    {
        self::assertSame("HTTP/1.1 100 Continue\r\n\r\n", ResponseEncoder::CONTINUE);
    }
}
