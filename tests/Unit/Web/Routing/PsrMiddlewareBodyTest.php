<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing;

use Nyholm\Psr7\Factory\Psr17Factory;
use Petrel\Http\Cookie;
use Petrel\Http\FileBody;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Http\StreamBody;
use Petrel\Tests\Unit\Web\Routing\Fixtures\PsrCallbackMiddleware;
use Petrel\Web\App;
use Petrel\Web\Error\NotFound;
use Petrel\Web\Error\RenderedError;
use Petrel\Web\Internal\PsrNextHandler;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;

/**
 * What a PSR-15 middleware sees of the inner response and what goes out after it: file
 * and streamed bodies readable (an ETag, a gzip), and sent whole; writes kept; what PSR-7
 * cannot carry (Cookie objects, the rendered error, a 101's upgrade) kept when it only
 * re-heads the response (a replaced body: PsrMiddlewareReplacedBodyTest).
 */
#[CoversClass(PsrNextHandler::class)]
final class PsrMiddlewareBodyTest extends TestCase
{
    private string $dir;

    protected function setUp(): void
    {
        $this->dir = \sys_get_temp_dir() . '/petrel-psr-body-' . \bin2hex(\random_bytes(4));
        \mkdir($this->dir);
    }

    protected function tearDown(): void
    {
        foreach (\glob($this->dir . '/*') ?: [] as $file) {
            \unlink($file);
        }
        \rmdir($this->dir);
    }


    /** The bytes a response sends, whatever its body is. */
    private static function bytes(Response $response): string
    {
        $body = $response->getBody();

        return match (true) {
            \is_string($body) => $body,
            $body instanceof FileBody => (string) \file_get_contents($body->getPath(), false, null, $body->getOffset(), $body->getLength()),
            $body instanceof StreamBody => \implode('', \iterator_to_array($body->getChunks(), false)),
            default => self::fail('unexpected body ' . \get_debug_type($body)),
        };
    }

    private function file(string $bytes): string
    {
        $path = $this->dir . '/f' . \strlen($bytes);
        \file_put_contents($path, $bytes);

        return $path;
    }

    /** @return \Generator<int, string> one-shot, as a real export is */
    private static function generate(string ...$chunks): \Generator
    {
        yield from $chunks;
    }

    /** An ETag middleware read an empty body from a file response: every file had the ETag of ''. */
    public function testAnEtagMiddlewareReadsAFileBodyAndTheFileStillGoesOutAsAFile(): void
    {
        $path = $this->file('file contents');
        $file = Response::file($path, 'text/plain');
        $app = PsrCallbackMiddleware::app(static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            $response = $next->handle($request);

            return $response->withHeader('ETag', '"' . \md5((string) $response->getBody()) . '"');
        }, static fn () => $file);

        $response = $app->handle(Request::create('GET', '/'));

        self::assertSame('"' . \md5('file contents') . '"', $response->getHeader('ETag'));
        self::assertSame($file->getBody(), $response->getBody(), 'still the FileBody: streamed by the connection, not read into memory');
    }

    /** A range (offset, length) reads as its bytes only, seekable. */
    public function testAMiddlewareSeesTheRangeOfAFileBody(): void
    {
        $range = new Response(206, [], new FileBody($this->file('0123456789'), 3, 4));
        $seen = [];
        $app = PsrCallbackMiddleware::app(static function (ServerRequestInterface $request, RequestHandlerInterface $next) use (&$seen): ResponseInterface {
            $response = $next->handle($request);
            $body = $response->getBody();
            $seen = [$body->getSize(), $body->read(2), $body->getContents(), $body->eof()];
            $body->seek(1);
            $seen[] = $body->read(10);

            return $response;
        }, static fn () => $range);

        $response = $app->handle(Request::create('GET', '/'));

        self::assertSame([4, '34', '56', true, '456'], $seen);
        self::assertSame($range, $response);
    }

    /** A gzip middleware rebuilding the body from a file or a stream sent an empty gzip. */
    public function testAGzipMiddlewareRebuildsTheBodyFromAFileOrAStream(): void
    {
        $gzip = static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            $response = $next->handle($request);
            $compressed = (new Psr17Factory())->createStream((string) \gzencode((string) $response->getBody()));

            return $response->withHeader('Content-Encoding', 'gzip')->withBody($compressed);
        };
        $path = $this->file(\str_repeat('text ', 1000));
        $file = PsrCallbackMiddleware::app($gzip, static fn () => Response::file($path, 'text/plain'))->handle(Request::create('GET', '/'));
        $stream = PsrCallbackMiddleware::app($gzip, static fn () => Response::stream(self::generate('ab', 'cd')))->handle(Request::create('GET', '/'));

        self::assertSame(\str_repeat('text ', 1000), \gzdecode(self::bytes($file)));
        self::assertSame('abcd', \gzdecode(self::bytes($stream)));
        self::assertSame('gzip', $stream->getHeader('Content-Encoding'));
    }

    /**
     * A middleware that reads the start of a generator's body (to sniff it) and returns the
     * response: the bytes it read must still go out, though the generator is one-shot.
     */
    public function testAStreamReadByAMiddlewareIsStillSentWhole(): void
    {
        $sniff = static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            $response = $next->handle($request);

            return $response->withHeader('X-Starts', $response->getBody()->read(3));
        };
        $same = static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            $response = $next->handle($request);
            $response->getBody()->read(1);

            return $response;
        };
        $stream = static fn () => new Response(200, [], new StreamBody(self::generate('ab', 'cd', 'ef'), 6));

        $reheaded = PsrCallbackMiddleware::app($sniff, $stream)->handle(Request::create('GET', '/'));
        self::assertSame('abc', $reheaded->getHeader('X-Starts'));
        self::assertSame('abcdef', self::bytes($reheaded), 'the bytes read come from the buffer, the rest from the generator');
        self::assertSame('abcdef', self::bytes(PsrCallbackMiddleware::app($same, $stream)->handle(Request::create('GET', '/'))), 'the same response object returned');
    }

    /** Untouched, a streamed body goes out as the original StreamBody (no buffer, no copy). */
    public function testAnUntouchedStreamGoesOutAsTheOriginalBody(): void
    {
        $body = new StreamBody(self::generate('a', 'b'));
        $app = PsrCallbackMiddleware::app(static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            return $next->handle($request)->withHeader('X-Frame-Options', 'DENY');
        }, static fn () => new Response(200, [], $body));

        $response = $app->handle(Request::create('GET', '/'));

        self::assertSame($body, $response->getBody());
        self::assertSame('DENY', $response->getHeader('X-Frame-Options'));
    }

    /** Writing to the inner body (a footer) was lost: the original string went out. */
    public function testWhatAMiddlewareWritesToTheBodyIsSent(): void
    {
        $app = PsrCallbackMiddleware::app(static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            $response = $next->handle($request);
            $response->getBody()->seek(0, \SEEK_END);
            $response->getBody()->write('<footer>');

            return $response;
        }, static fn () => Response::html('<p>page</p>'));

        self::assertSame('<p>page</p><footer>', self::bytes($app->handle(Request::create('GET', '/'))));
    }

    /** @return \Closure(ServerRequestInterface, RequestHandlerInterface): ResponseInterface */
    /**
     * A PSR-15 header middleware (security headers…) rebuilt the response from PSR-7: a
     * WebSocket's 101 lost its upgrade handler, and the connection answered 500.
     */
    public function testReheadingKeepsAWebSocketUpgrade(): void
    {
        $onUpgrade = static function (): void {
        };
        $upgrade = PsrCallbackMiddleware::app(PsrCallbackMiddleware::securityHeaders(), static fn () => Response::upgrade(['Upgrade' => 'websocket'], $onUpgrade))->handle(Request::create('GET', '/'));

        self::assertSame([101, 'DENY'], [$upgrade->getStatus(), $upgrade->getHeader('X-Frame-Options')]);
        self::assertNotNull($upgrade->getUpgradeHandler(), 'without it the connection answers 500');
    }

    /** @return iterable<string, array{\Closure}> */
    public static function responsesMadeFromTheInnerOne(): iterable
    {
        yield 're-headed' => [PsrCallbackMiddleware::securityHeaders()];
        yield 'body replaced (gzip)' => [PsrCallbackMiddleware::gzip()];
    }

    /**
     * An outer global middleware lost the exception behind an error page (RenderedError::of()
     * null), re-headed or gzipped by a PSR-15 middleware in between.
     */
    #[DataProvider('responsesMadeFromTheInnerOne')]
    public function testAResponseMadeFromTheInnerOneKeepsTheRenderedError(\Closure $psrMiddleware): void
    {
        $seen = null;
        $app = new App();
        $app->setErrorLogger(static function (): void {
        });
        $app->middleware(static function (Request $request, RequestHandler $next) use (&$seen): Response {
            $response = $next->handle($request);
            $seen = RenderedError::of($response);

            return $response;
        }, new PsrCallbackMiddleware($psrMiddleware));

        self::assertSame(404, $app->handle(Request::create('GET', '/missing'))->getStatus());
        self::assertInstanceOf(NotFound::class, $seen);
    }

    /**
     * Cookies became Set-Cookie header lines: an outer middleware did not see them, and
     * setting the same cookie again sent it twice.
     */
    public function testReheadingKeepsTheCookies(): void
    {
        $app = PsrCallbackMiddleware::app(PsrCallbackMiddleware::securityHeaders(), static fn () => Response::text('hi')->withCookie(new Cookie('sid', 'abc'))->withHeader('Set-Cookie', 'raw=1'));
        $app->middleware(static fn (Request $request, RequestHandler $next): Response => $next->handle($request)->withCookie(new Cookie('sid', 'new')));

        $response = $app->handle(Request::create('GET', '/'));

        self::assertSame(['sid=new'], \array_map(static fn (Cookie $c) => $c->name . '=' . $c->value, $response->getCookies()), 'the cookie replaced, not sent twice');
        self::assertSame('raw=1', $response->getHeader('Set-Cookie'), 'a Set-Cookie header stays a header');
        self::assertSame('DENY', $response->getHeader('X-Frame-Options'));
    }

    /** A middleware that rewrites Set-Cookie lines (adds "; Secure"): the rewritten line goes out, once. */
    public function testARewrittenCookieLineIsSentAsRewritten(): void
    {
        $app = PsrCallbackMiddleware::app(static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            $response = $next->handle($request);

            return $response->withHeader('Set-Cookie', \array_map(static fn (string $line) => $line . '; Secure', $response->getHeader('Set-Cookie')));
        }, static fn () => Response::text('hi')->withCookie(new Cookie('a', '1'))->withCookie(new Cookie('b', '2')));

        $response = $app->handle(Request::create('GET', '/'));

        self::assertSame([], $response->getCookies());
        self::assertSame([
            (new Cookie('a', '1'))->toHeaderValue() . '; Secure',
            (new Cookie('b', '2'))->toHeaderValue() . '; Secure',
        ], $response->getHeaders()['Set-Cookie'] ?? null);
    }
}
