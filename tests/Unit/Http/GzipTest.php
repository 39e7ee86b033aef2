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

    private static function request(string $acceptEncoding): Request
    {
        return Request::create('GET', '/', ['Accept-Encoding' => $acceptEncoding]);
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

    /** @return iterable<string, array{string, Response}> */
    public static function leftAlone(): iterable
    {
        // Its Content-Range counts the bytes as they are: compressed, a ranged download broke.
        yield '206' => ['gzip', self::page()->withStatus(206)->withHeader('Content-Range', 'bytes 0-2599/10000')];
        yield 'no-transform' => ['gzip', self::page()->withHeader('Cache-Control', 'public, no-transform')];
        yield 'gzip refused by q=0 though * is welcome' => ['br, *;q=0.1, gzip;q=0', self::page()];
        yield 'gzip refused, * first' => ['*;q=0.5, gzip;q=0', self::page()];
        yield 'not asked for' => ['br', self::page()];
        yield 'small' => ['gzip', Response::html('<p>small</p>')];
        yield 'not text' => ['gzip', new Response(200, ['Content-Type' => 'image/png'], \str_repeat("\0", 5000))];
    }

    #[DataProvider('leftAlone')]
    public function testLeftAlone(string $acceptEncoding, Response $response): void
    {
        self::assertSame($response, Gzip::maybeCompress(self::request($acceptEncoding), $response));
    }

    public function testAnyCodingCoversGzipUnlessGzipIsNamed(): void
    {
        self::assertSame('gzip', Gzip::maybeCompress(self::request('br;q=1, *;q=0.5'), self::page())->getHeader('Content-Encoding'));
        self::assertSame('gzip', Gzip::maybeCompress(self::request('*;q=0, gzip'), self::page())->getHeader('Content-Encoding'));
    }
}
