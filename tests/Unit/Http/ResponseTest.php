<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\Cookie;
use Petrel\Http\FileBody;
use Petrel\Http\Response;
use Petrel\Http\Status;
use Petrel\Http\StreamBody;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(Response::class)]
#[CoversClass(Cookie::class)]
#[CoversClass(FileBody::class)]
#[CoversClass(StreamBody::class)]
#[CoversClass(Status::class)]
final class ResponseTest extends TestCase
{
    public function testNamedConstructors(): void
    {
        $text = Response::text('hi', 201);
        self::assertSame(201, $text->getStatus());
        self::assertSame('Created', $text->getReasonPhrase());
        self::assertSame('text/plain; charset=utf-8', $text->getHeader('content-type'));
        self::assertSame('hi', $text->getBody());

        self::assertSame('text/html; charset=utf-8', Response::html('<p>')->getHeader('Content-Type'));

        $json = Response::json(['path' => '/a', 'name' => 'Zoë']);
        self::assertSame('application/json', $json->getHeader('Content-Type'));
        self::assertSame('{"path":"/a","name":"Zoë"}', $json->getBody());
        self::assertSame('{"path":"\/a"}', Response::json(['path' => '/a'], 200, 0)->getBody());

        $redirect = Response::redirect('/login', 303);
        self::assertSame(303, $redirect->getStatus());
        self::assertSame('/login', $redirect->getHeader('location'));
        self::assertSame(302, Response::redirect('/')->getStatus());

        self::assertSame(204, Response::empty()->getStatus());
        self::assertSame('', Response::empty()->getBody());

        $file = Response::file(__FILE__);
        $body = $file->getBody();
        self::assertInstanceOf(FileBody::class, $body);
        self::assertSame(\filesize(__FILE__), $body->getLength());
        self::assertSame(__FILE__, $body->getPath());
        self::assertSame(0, $body->getOffset());
        self::assertSame('application/octet-stream', $file->getHeader('Content-Type'));
        self::assertSame('text/css', Response::file(__FILE__, 'text/css')->getHeader('Content-Type'));

        $stream = Response::stream(['a', 'b'], 'text/event-stream');
        self::assertInstanceOf(StreamBody::class, $stream->getBody());
        self::assertNull($stream->getBody()->getLength());
        self::assertSame(['a', 'b'], $stream->getBody()->getChunks());
    }

    public function testJsonErrorsThrow(): void
    {
        $this->expectException(\JsonException::class);
        Response::json(\NAN);
    }

    public function testHeadersAreCaseInsensitiveAndCopiedOnWrite(): void
    {
        $response = new Response(200, ['X-Trace' => 'a', 'x-trace' => ['b'], 'Cache-Control' => 'no-store']);
        self::assertSame(['X-Trace' => ['a', 'b'], 'Cache-Control' => ['no-store']], $response->getHeaders());

        $changed = $response->withHeader('x-TRACE', 'c')->withAddedHeader('Vary', 'Accept')->withAddedHeader('vary', 'Cookie');
        self::assertSame('a, b', $response->getHeader('X-Trace'), 'original unchanged');
        self::assertSame('c', $changed->getHeader('X-Trace'));
        self::assertSame('Accept, Cookie', $changed->getHeader('VARY'));
        self::assertSame(['x-TRACE' => ['c'], 'Cache-Control' => ['no-store'], 'Vary' => ['Accept', 'Cookie']], $changed->getHeaders());
        self::assertFalse($changed->withoutHeader('cache-control')->hasHeader('Cache-Control'));
        self::assertTrue($changed->hasHeader('cache-control'));
        self::assertSame('42', $changed->withHeader('X-Count', 42)->getHeader('x-count'));
        self::assertSame('  trimmed', '  ' . $changed->withHeader('X-T', "  trimmed\t")->getHeader('x-t'));
    }

    public function testHeaderNamesFromInputDoNotGrowMemoryAndStayChecked(): void
    {
        // Response remembers the names it has checked, up to a bound: names an app builds
        // from input (X-Debug-<anything>) must neither grow the worker's memory nor let an
        // invalid name through once the remembered ones are dropped.
        $response = Response::text('x');
        $response->withHeader('X-Warm-Up', '1');
        $before = \memory_get_usage();
        for ($i = 0; $i < 20_000; ++$i) {
            $name = "X-Input-Derived-Header-{$i}";
            $copy = $response->withHeader($name, (string) $i);
            if ($i % 997 === 0) {
                self::assertSame((string) $i, $copy->getHeader(\strtoupper($name)));
                self::assertSame([$name => [(string) $i]], \array_slice($copy->getHeaders(), -1, 1, true));
            }
        }
        self::assertLessThan(512 * 1024, \memory_get_usage() - $before, '20,000 distinct header names');

        $this->expectException(\ValueError::class);
        $response->withHeader("X-Bad\r\nName", '1');
    }

    public function testStatusAndBodyCopies(): void
    {
        $response = Response::text('a');
        self::assertSame(404, $response->withStatus(404)->getStatus());
        self::assertSame('Not Found', $response->withStatus(404)->getReasonPhrase());
        self::assertSame('', $response->withStatus(299)->getReasonPhrase());
        self::assertSame(200, $response->getStatus());
        self::assertSame('b', $response->withBody('b')->getBody());
        self::assertSame('a', $response->getBody());
    }

    /** @return iterable<string, array{callable(): mixed}> */
    public static function misuse(): iterable
    {
        yield 'CRLF in value' => [static fn () => Response::text('')->withHeader('X-A', "a\r\nSet-Cookie: evil=1")];
        yield 'LF in value' => [static fn () => Response::text('')->withHeader('X-A', "a\nb")];
        yield 'CR in value' => [static fn () => Response::text('')->withAddedHeader('X-A', "a\rb")];
        yield 'NUL in value' => [static fn () => new Response(200, ['X-A' => "a\0"])];
        yield 'CRLF in a list value' => [static fn () => Response::text('')->withHeader('X-A', ['ok', "b\r\n"])];
        yield 'CRLF in name' => [static fn () => Response::text('')->withHeader("X-A\r\nEvil", 'a')];
        yield 'space in name' => [static fn () => new Response(200, ['X A' => 'a'])];
        yield 'colon in name' => [static fn () => Response::text('')->withHeader('X-A:', 'a')];
        yield 'empty name' => [static fn () => Response::text('')->withHeader('', 'a')];
        yield 'no values' => [static fn () => Response::text('')->withHeader('X-A', [])];
        yield 'redirect to a CRLF URL' => [static fn () => Response::redirect("/a\r\nSet-Cookie: evil=1")];
        yield 'status 99' => [static fn () => new Response(99)];
        yield 'status 600' => [static fn () => Response::text('')->withStatus(600)];
        yield 'status 100, interim' => [static fn () => new Response(100)];
        yield 'status 103, interim' => [static fn () => Response::text('')->withStatus(103)];
        yield 'status 199, interim' => [static fn () => new Response(199)];
        yield 'cookie name with space' => [static fn () => new Cookie('a b', 'v')];
        yield 'cookie name with =' => [static fn () => new Cookie('a=b', 'v')];
        yield 'cookie path with ;' => [static fn () => new Cookie('a', 'v', path: '/; Domain=evil')];
        yield 'cookie domain with CRLF' => [static fn () => new Cookie('a', 'v', domain: "x\r\ny")];
        yield 'cookie SameSite' => [static fn () => new Cookie('a', 'v', sameSite: 'Sometimes')];
        // Cookies browsers drop without a word: better a failure where they are made.
        yield 'cookie SameSite=None without Secure' => [static fn () => new Cookie('a', 'v', sameSite: 'None')];
        yield 'cookie __Secure- without Secure' => [static fn () => new Cookie('__Secure-a', 'v')];
        yield 'cookie __Host- without Secure' => [static fn () => new Cookie('__Host-a', 'v')];
        yield 'cookie __Host- with a Domain' => [static fn () => new Cookie('__Host-a', 'v', domain: 'example.com', secure: true)];
        yield 'cookie __Host- with another Path' => [static fn () => new Cookie('__host-a', 'v', path: '/app', secure: true)];
        yield 'CRLF in a file content type' => [static fn () => Response::file(__FILE__, "text/html\r\nX-Evil: 1")];
        yield 'file range' => [static fn () => new FileBody(__FILE__, 0, \PHP_INT_MAX)];
    }

    /** @param callable(): mixed $misuse */
    #[DataProvider('misuse')]
    public function testMisuseIsRejected(callable $misuse): void
    {
        $this->expectException(\ValueError::class);
        $misuse();
    }

    public function testMissingFileIsARuntimeFailure(): void
    {
        $this->expectException(\RuntimeException::class);
        Response::file(__DIR__ . '/no-such-file');
    }

    public function testCookies(): void
    {
        $response = Response::text('')
            ->withCookie(new Cookie('session', 'a b;c', maxAge: 3600, secure: true))
            ->withCookie(new Cookie('theme', 'dark', expires: 1700000000, path: '/app', domain: 'example.com', httpOnly: false, sameSite: 'strict'))
            ->withCookie(new Cookie('session', 'replaced', sameSite: null))
            ->withoutCookie('old');
        $lines = \array_map(static fn (Cookie $c): string => $c->toHeaderValue(), $response->getCookies());
        self::assertSame([
            'session=replaced; Path=/; HttpOnly',
            'theme=dark; Expires=Tue, 14 Nov 2023 22:13:20 GMT; Path=/app; Domain=example.com; SameSite=Strict',
            'old=; Expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0; Path=/; HttpOnly; SameSite=Lax',
        ], $lines);
        self::assertSame(
            'session=a%20b%3Bc; Max-Age=3600; Path=/; Secure; HttpOnly; SameSite=Lax',
            (new Cookie('session', 'a b;c', maxAge: 3600, secure: true))->toHeaderValue(),
        );
        $date = new \DateTimeImmutable('2030-01-02 03:04:05', new \DateTimeZone('Europe/Paris'));
        self::assertStringContainsString('Expires=Wed, 02 Jan 2030 02:04:05 GMT', (new Cookie('d', 'x', $date))->toHeaderValue());
        self::assertSame([], Response::text('')->getCookies());
        self::assertStringEndsWith('; Secure; HttpOnly; SameSite=None', (new Cookie('embed', 'x', secure: true, sameSite: 'none'))->toHeaderValue());
        self::assertSame(
            '__Host-id=; Expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Lax',
            Cookie::expired('__Host-id')->toHeaderValue(),
            'deleting a prefixed cookie takes Secure too',
        );
    }

    public function testStatusTable(): void
    {
        self::assertSame('OK', Status::reasonPhrase(200));
        self::assertSame('Request Header Fields Too Large', Status::reasonPhrase(431));
        self::assertSame('', Status::reasonPhrase(599));
        self::assertTrue(Status::forbidsBody(101));
        self::assertTrue(Status::forbidsBody(204));
        self::assertTrue(Status::forbidsBody(304));
        self::assertFalse(Status::forbidsBody(200));
    }

    public function testAfterSendCallbacksAreKeptByCopiesAndRefusedOnA101(): void
    {
        $first = static function (): void {
        };
        $second = static function (): void {
        };
        $plain = Response::text('hi');
        $response = $plain->withAfterSend($first);

        self::assertSame([], $plain->getAfterSend(), 'the original is unchanged');
        self::assertSame([$first], $response->getAfterSend());
        self::assertSame('hi', $response->getBody());
        self::assertSame('text/plain; charset=utf-8', $response->getHeader('Content-Type'));
        $copy = $response->withHeader('X-A', '1')->withStatus(201)->withBody('there')->withCookie(new Cookie('c', 'v'))->withAfterSend($second);
        self::assertSame([$first, $second], $copy->getAfterSend());
        self::assertSame([$first], $response->getAfterSend());
        self::assertSame(201, $copy->getStatus());
        self::assertSame(['c'], \array_map(static fn (Cookie $cookie): string => $cookie->name, \array_values($copy->getCookies())));

        try {
            Response::upgrade(['Upgrade' => 'x'], static function (): void {
            })->withAfterSend($first);
            self::fail('a 101 has no after-send callbacks');
        } catch (\ValueError $error) {
            self::assertStringContainsString('upgrade handler', $error->getMessage());
        }
        $this->expectException(\ValueError::class);
        $response->withStatus(101);
    }
}
