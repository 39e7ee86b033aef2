<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing;

use Nyholm\Psr7\Factory\Psr17Factory;
use Petrel\Http\Cookie;
use Petrel\Http\Internal\ResponseEncoder;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Tests\Unit\Web\Routing\Fixtures\PsrCallbackMiddleware;
use Petrel\Web\Internal\PsrNextHandler;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;

/**
 * A PSR-15 middleware that replaces the inner response's body (a gzip, a minifier, an ETag
 * middleware that re-streams): what PSR-7 cannot carry (after-send callbacks, Cookie
 * objects, the rendered error) goes on with the response it made from the inner one, and
 * not with one it made from scratch, nor with one kept from another request.
 */
#[CoversClass(PsrNextHandler::class)]
final class PsrMiddlewareReplacedBodyTest extends TestCase
{

    /** @return \Closure(ServerRequestInterface, RequestHandlerInterface): ResponseInterface */
    /** The head the connection writes for $response. */
    private static function head(Response $response): string
    {
        return (new ResponseEncoder())->encodeHead($response, '1.1', true, false, 'Thu, 01 Jan 2026 00:00:00 GMT');
    }

    /**
     * A gzip in front of a Symfony app (kernel.terminate is an after-send callback): the
     * response was rebuilt from PSR-7 and the callbacks silently never ran.
     */
    public function testAGzipMiddlewareKeepsTheAfterSendCallbacks(): void
    {
        $ran = [];
        $terminate = static function () use (&$ran): void {
            $ran[] = 'terminate';
        };
        $flush = static function () use (&$ran): void {
            $ran[] = 'flush';
        };
        $app = PsrCallbackMiddleware::app(PsrCallbackMiddleware::gzip(), static fn () => Response::text('page')->withAfterSend($terminate)->withAfterSend($flush));

        $response = $app->handle(Request::create('GET', '/'));
        foreach ($response->getAfterSend() as $callback) {
            $callback(); // as the connection does once the response is written
        }

        self::assertSame(['terminate', 'flush'], $ran);
        self::assertSame('page', \gzdecode((string) $response->getBody()));
        self::assertSame('gzip', $response->getHeader('Content-Encoding'));
    }

    /** The Cookie objects became header lines: an outer middleware setting the same cookie sent it twice. */
    public function testAReplacedBodyKeepsTheCookieObjectsAndSendsEachCookieOnce(): void
    {
        $app = PsrCallbackMiddleware::app(PsrCallbackMiddleware::gzip(), static fn () => Response::text('hi')->withCookie(new Cookie('sid', 'abc'))->withHeader('Set-Cookie', 'raw=1'));
        $app->middleware(static fn (Request $request, RequestHandler $next): Response => $next->handle($request)->withCookie(new Cookie('sid', 'new')));

        $response = $app->handle(Request::create('GET', '/'));

        self::assertSame(['sid=new'], \array_map(static fn (Cookie $c) => $c->name . '=' . $c->value, $response->getCookies()));
        self::assertSame('raw=1', $response->getHeader('Set-Cookie'), 'a Set-Cookie header stays a header');
        $head = self::head($response);
        self::assertSame(2, \substr_count($head, "\r\nSet-Cookie: "), $head);
        self::assertSame(1, \substr_count($head, 'sid='), $head);
    }

    /** An ETag middleware answering 304 with an empty body: the deferred work still runs. */
    public function testANotModifiedAnswerMadeFromTheInnerResponseKeepsItsCallbacks(): void
    {
        $ran = false;
        $callback = static function () use (&$ran): void {
            $ran = true;
        };
        $app = PsrCallbackMiddleware::app(static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            $response = $next->handle($request);

            return $response->withStatus(304)->withBody((new Psr17Factory())->createStream(''));
        }, static fn () => Response::text('page')->withAfterSend($callback));

        $response = $app->handle(Request::create('GET', '/'));
        \array_map(static fn (\Closure $callback) => $callback(), $response->getAfterSend());

        self::assertSame([304, ''], [$response->getStatus(), $response->getBody()]);
        self::assertTrue($ran);
    }

    /**
     * A middleware that rewrites the cookie lines ("; Secure") and replaces the body: the
     * lines go out as rewritten, once, and the callbacks still run (that path dropped them,
     * body replaced or not).
     */
    public function testRewrittenCookieLinesKeepTheCallbacks(): void
    {
        $ran = false;
        $secure = static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            $response = $next->handle($request);

            return $response->withHeader('Set-Cookie', \array_map(static fn (string $line) => $line . '; Secure', $response->getHeader('Set-Cookie')));
        };
        $gzipped = PsrCallbackMiddleware::gzip();
        $callback = static function () use (&$ran): void {
            $ran = true;
        };
        $action = static fn () => Response::text('hi')->withCookie(new Cookie('a', '1'))->withAfterSend($callback);
        $app = PsrCallbackMiddleware::app($secure, $action);
        $app->middleware(new PsrCallbackMiddleware($gzipped));

        $response = $app->handle(Request::create('GET', '/'));
        \array_map(static fn (\Closure $callback) => $callback(), $response->getAfterSend());

        self::assertTrue($ran);
        self::assertSame([], $response->getCookies());
        self::assertSame([(new Cookie('a', '1'))->toHeaderValue() . '; Secure'], $response->getHeaders()['Set-Cookie'] ?? null);
        self::assertSame(1, \substr_count(self::head($response), 'Set-Cookie: '));
    }

    /**
     * A response the middleware builds itself, even with every header of the inner one
     * copied over, is its own: no callbacks, no Cookie objects, no rendered error (the
     * copied Set-Cookie lines are sent as lines).
     */
    public function testAResponseBuiltFromScratchInheritsNothing(): void
    {
        $app = PsrCallbackMiddleware::app(static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            $inner = $next->handle($request);
            $factory = new Psr17Factory();
            $response = $factory->createResponse($inner->getStatusCode())->withBody($factory->createStream('replaced'));
            foreach ($inner->getHeaders() as $name => $values) {
                $response = $response->withHeader($name, $values);
            }

            return $response;
        }, static fn () => Response::text('page')->withCookie(new Cookie('sid', 'abc'))->withAfterSend(static function (): void {
        }));

        $response = $app->handle(Request::create('GET', '/'));

        self::assertSame([[], [], 'replaced'], [$response->getAfterSend(), $response->getCookies(), $response->getBody()]);
        self::assertSame([(new Cookie('sid', 'abc'))->toHeaderValue()], $response->getHeaders()['Set-Cookie'] ?? null);
        self::assertNull($response->getRenderedFrom());
    }

    /**
     * A cache middleware that keeps a PSR response and answers a later request with a copy
     * of it: that request must not run the first one's deferred work again, nor send its
     * Cookie objects.
     */
    public function testAResponseKeptFromAnotherRequestInheritsNothing(): void
    {
        $cached = null;
        $app = PsrCallbackMiddleware::app(static function (ServerRequestInterface $request, RequestHandlerInterface $next) use (&$cached): ResponseInterface {
            $response = $next->handle($request); // called each time, to show a cached copy is not taken for this call's
            $cached ??= $response;

            return $cached->withBody((new Psr17Factory())->createStream('cached'));
        }, static fn () => Response::text('page')->withCookie(new Cookie('sid', 'abc'))->withAfterSend(static function (): void {
        }));

        $first = $app->handle(Request::create('GET', '/'));
        $second = $app->handle(Request::create('GET', '/'));

        self::assertCount(1, $first->getAfterSend());
        self::assertSame([[], []], [$second->getAfterSend(), $second->getCookies()]);
        self::assertSame('cached', $second->getBody());
    }
}
