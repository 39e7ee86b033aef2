<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\Internal\Gzip;
use Petrel\Http\Request;
use Petrel\Http\Response;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** --gzip: what is compressed, and what a compressed response says about itself. */
final class GzipTest extends TestCase
{
    private static function page(): Response
    {
        return Response::html(\str_repeat('<p>petrel</p>', 200));
    }

    private static function request(?string $acceptEncoding): Request
    {
        return Request::create('GET', '/', $acceptEncoding === null ? [] : ['Accept-Encoding' => $acceptEncoding]);
    }

    public function testATextBodyIsCompressedAndSaysSo(): void
    {
        $page = self::page();
        $gzipped = Gzip::maybeCompress(self::request('gzip, br'), $page->withHeader('ETag', '"v1"'));
        self::assertSame('gzip', $gzipped->getHeader('Content-Encoding'));
        self::assertSame($page->getBody(), \gzdecode((string) $gzipped->getBody()));
        self::assertSame('Accept-Encoding', $gzipped->getHeader('Vary'));
        self::assertSame('W/"v1"', $gzipped->getHeader('ETag'), 'other bytes: a weak validator, as nginx makes it');
        self::assertSame('accept-encoding', Gzip::maybeCompress(self::request('gzip'), $page->withHeader('Vary', 'accept-encoding'))->getHeader('Vary'), 'not twice');
        self::assertSame('Cookie, Accept-Encoding', Gzip::maybeCompress(self::request('gzip'), $page->withHeader('Vary', 'Cookie'))->getHeader('Vary'));
    }

    /** @return iterable<string, array{string|null}> */
    public static function clientsWithoutGzip(): iterable
    {
        yield 'no Accept-Encoding' => [null];
        yield 'not asked for' => ['br'];
        yield 'identity only' => ['identity'];
        yield 'gzip refused by q=0 though * is welcome' => ['br, *;q=0.1, gzip;q=0'];
        yield 'gzip refused, * first' => ['*;q=0.5, gzip;q=0'];
    }

    /**
     * Before, only the compressed copy said Vary: the identity one sent to a client without
     * gzip carried none, so a shared cache stored it as the only variant and served it to
     * every client (nginx's gzip_vary marks both).
     */
    #[DataProvider('clientsWithoutGzip')]
    public function testAResponseSentUncompressedOnlyForWantOfGzipVariesOnAcceptEncoding(?string $acceptEncoding): void
    {
        $page = self::page()->withHeader('ETag', '"v1"');
        $identity = Gzip::maybeCompress(self::request($acceptEncoding), $page);
        self::assertNull($identity->getHeader('Content-Encoding'));
        self::assertSame($page->getBody(), $identity->getBody());
        self::assertSame('"v1"', $identity->getHeader('ETag'), 'the bytes as they are: still strong');
        self::assertSame('Accept-Encoding', $identity->getHeader('Vary'));
        self::assertSame('Cookie, Accept-Encoding', Gzip::maybeCompress(self::request($acceptEncoding), $page->withHeader('Vary', 'Cookie'))->getHeader('Vary'), 'merged');
        self::assertSame('Cookie, accept-encoding', Gzip::maybeCompress(self::request($acceptEncoding), $page->withHeader('Vary', 'Cookie, accept-encoding'))->getHeader('Vary'), 'not twice');
        $varyAll = $page->withHeader('Vary', '*');
        self::assertSame($varyAll, Gzip::maybeCompress(self::request($acceptEncoding), $varyAll), '* covers it');
    }

    /**
     * A 304 must carry the Vary its 200 would (RFC 9110 §15.4.5). Before, a 304 a middleware
     * made from a compressible page (its Content-Type kept, body emptied) had none.
     */
    public function testANotModifiedOfACompressiblePageVariesAsItsOkWould(): void
    {
        $notModified = self::page()->withStatus(304)->withBody('')->withHeader('ETag', '"v1"');
        foreach (['gzip', null] as $acceptEncoding) {
            $sent = Gzip::maybeCompress(self::request($acceptEncoding), $notModified);
            self::assertSame('Accept-Encoding', $sent->getHeader('Vary'));
            self::assertNull($sent->getHeader('Content-Encoding'));
            self::assertSame('', $sent->getBody());
            self::assertSame('"v1"', $sent->getHeader('ETag'));
        }
    }

    /**
     * @return iterable<string, array{Response}> responses no client gets compressed: none
     *     varies on Accept-Encoding, whether this client accepts gzip or not
     */
    public static function neverCompressed(): iterable
    {
        // Its Content-Range counts the bytes as they are: compressed, a ranged download broke.
        yield '206' => [self::page()->withStatus(206)->withHeader('Content-Range', 'bytes 0-2599/10000')];
        yield 'no-transform' => [self::page()->withHeader('Cache-Control', 'public, no-transform')];
        yield 'encoded already' => [self::page()->withHeader('Content-Encoding', 'br')];
        yield 'small' => [Response::html('<p>small</p>')];
        yield 'not text' => [new Response(200, ['Content-Type' => 'image/png'], \str_repeat("\0", 5000))];
        yield 'no Content-Type' => [new Response(200, [], \str_repeat('petrel ', 500))];
        yield 'streamed' => [Response::stream([\str_repeat('petrel ', 500)], 'text/plain')];
        yield '204' => [Response::empty()];
        // As StaticFiles makes it: a file's 200 is never compressed, so its 304 has no Vary.
        yield '304 with the validators only' => [new Response(304, ['ETag' => '"v1"', 'Last-Modified' => 'Sun, 06 Nov 1994 08:49:37 GMT'])];
        yield '304 of an image' => [new Response(304, ['Content-Type' => 'image/png'])];
        yield '304 of an encoded page' => [self::page()->withStatus(304)->withBody('')->withHeader('Content-Encoding', 'br')];
    }

    #[DataProvider('neverCompressed')]
    public function testLeftAlone(Response $response): void
    {
        self::assertSame($response, Gzip::maybeCompress(self::request('gzip'), $response));
        self::assertSame($response, Gzip::maybeCompress(self::request(null), $response));
        self::assertSame($response, Gzip::maybeCompress(self::request('br'), $response));
    }

    public function testAnyCodingCoversGzipUnlessGzipIsNamed(): void
    {
        self::assertSame('gzip', Gzip::maybeCompress(self::request('br;q=1, *;q=0.5'), self::page())->getHeader('Content-Encoding'));
        self::assertSame('gzip', Gzip::maybeCompress(self::request('*;q=0, gzip'), self::page())->getHeader('Content-Encoding'));
    }
}
