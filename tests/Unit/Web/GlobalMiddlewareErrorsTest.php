<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web;

use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Tests\Unit\Web\Routing\Fixtures\PsrTraceMiddleware;
use Petrel\Tests\Unit\Web\Routing\Fixtures\TraceMiddleware;
use Petrel\Web\App;
use Petrel\Web\Error\Forbidden;
use Petrel\Web\Error\MethodNotAllowed;
use Petrel\Web\Error\NotFound;
use Petrel\Web\Error\RenderedError;
use Petrel\Web\Internal\ErrorBoundary;
use Petrel\Web\Session\MemoryStore;
use Petrel\Web\Session\Session;
use Petrel\Web\Session\SessionMiddleware;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * Global middleware wraps routing and errors (as in Laravel and Symfony): 404, 405, an
 * HttpError, a 500 all come back through it as responses, with the headers it adds; the
 * exception stays available through RenderedError::of().
 */
#[CoversClass(ErrorBoundary::class)]
#[CoversClass(RenderedError::class)]
final class GlobalMiddlewareErrorsTest extends TestCase
{
    /** @var list<string> */
    private array $logged = [];

    private function app(): App
    {
        $app = new App();
        $app->setErrorLogger(function (\Throwable $error): void {
            $this->logged[] = $error->getMessage();
        });
        $app->middleware(new TraceMiddleware('outer'), static function (Request $request, RequestHandler $next): Response {
            return $next->handle($request)->withHeader('X-Request-Id', 'abc')->withHeader('Access-Control-Allow-Origin', '*');
        });
        $app->get('/', static fn () => 'home');
        $app->get('/users/{name}', static fn (string $name) => $name);
        $app->get('/boom', static fn () => throw new \RuntimeException('kaboom'));
        $app->get('/forbidden', static fn () => throw new Forbidden('No entry'));

        return $app;
    }

    /** @return array<string, array{string, string, int}> */
    public static function errors(): array
    {
        return [
            'a 404' => ['GET', '/missing', 404],
            'a 405' => ['DELETE', '/', 405],
            '400 malformed path' => ['GET', '/users/%00', 400],
            'an HttpError' => ['GET', '/forbidden', 403],
            'a 500' => ['GET', '/boom', 500],
        ];
    }

    #[DataProvider('errors')]
    public function testErrorResponsesCarryTheHeadersGlobalMiddlewareAdds(string $method, string $target, int $status): void
    {
        $response = $this->app()->handle(Request::create($method, $target, ['Accept' => 'application/json']));
        self::assertSame($status, $response->getStatus());
        self::assertSame('abc', $response->getHeader('X-Request-Id'));
        self::assertSame('*', $response->getHeader('Access-Control-Allow-Origin'));
        self::assertSame('outer', $response->getHeader('X-Out'));
        self::assertSame('application/json', $response->getHeader('Content-Type'), 'still rendered by Accept');
        self::assertSame($status === 500 ? ['kaboom'] : [], $this->logged, 'a 500 is logged once, HttpErrors not at all');
    }

    public function testTheAllowHeaderOfA405Survives(): void
    {
        $response = $this->app()->handle(Request::create('PUT', '/'));
        self::assertSame(405, $response->getStatus());
        self::assertSame('GET, HEAD', $response->getHeader('Allow'));
        self::assertSame('abc', $response->getHeader('X-Request-Id'));
    }

    public function testAGlobalMiddlewareSeesTheExceptionAndMayAnswerItsOwnPage(): void
    {
        $seen = [];
        $app = new App();
        $app->setErrorLogger(static function (): void {
        });
        $app->middleware(new TraceMiddleware('outer'));
        $app->middleware(static function (Request $request, RequestHandler $next) use (&$seen): Response {
            $response = $next->handle($request);
            $error = RenderedError::of($response);
            $seen[] = $error === null ? null : $error::class;

            return $error instanceof NotFound ? Response::text('no such page', 404) : $response;
        });
        $app->get('/', static fn () => 'home');
        $app->get('/boom', static fn () => throw new \LogicException('bug'));

        $custom = $app->handle(Request::create('GET', '/nope'));
        self::assertSame([404, 'no such page', 'outer'], [$custom->getStatus(), $custom->getBody(), $custom->getHeader('X-Out')]);
        self::assertSame(200, $app->handle(Request::create('GET', '/'))->getStatus());
        self::assertSame(500, $app->handle(Request::create('GET', '/boom'))->getStatus());
        self::assertSame(405, $app->handle(Request::create('POST', '/'))->getStatus());
        self::assertSame([NotFound::class, null, \LogicException::class, MethodNotAllowed::class], $seen);
        self::assertNull(RenderedError::of($custom), 'a page of its own carries none');
    }

    public function testAnExceptionFromAnInnerGlobalMiddlewareIsRenderedForTheOuterOnes(): void
    {
        $app = new App();
        $app->setErrorLogger(static function (): void {
        });
        $app->middleware(new TraceMiddleware('outer'), static fn (Request $r, RequestHandler $next): Response => throw new Forbidden());
        $app->get('/', static fn () => 'home');
        $response = $app->handle(Request::create('GET', '/'));
        self::assertSame([403, 'outer'], [$response->getStatus(), $response->getHeader('X-Out')]);
    }

    public function testTheOutermostMiddlewaresOwnExceptionIsStillAnErrorResponse(): void
    {
        $app = new App();
        $app->setErrorLogger(static function (): void {
        });
        $app->middleware(static fn (Request $r, RequestHandler $next): Response => throw new \RuntimeException('outer fails'));
        $app->get('/', static fn () => 'home');
        self::assertSame(500, $app->handle(Request::create('GET', '/'))->getStatus());
    }

    public function testPsr15GlobalMiddlewareGetsErrorResponsesToo(): void
    {
        $app = new App();
        $app->middleware(new PsrTraceMiddleware('psr'));
        $app->get('/', static fn () => 'home');
        $response = $app->handle(Request::create('GET', '/missing'));
        self::assertSame([404, 'psr'], [$response->getStatus(), $response->getHeader('X-Out')]);
    }

    public function testRouteMiddlewareStillSeesExceptionsAsExceptions(): void
    {
        $app = new App();
        $app->get('/', static fn () => throw new NotFound('gone'))->middleware(
            static function (Request $request, RequestHandler $next): Response {
                try {
                    return $next->handle($request);
                } catch (NotFound) {
                    return Response::text('caught by the route middleware', 410);
                }
            },
        );
        self::assertSame(410, $app->handle(Request::create('GET', '/'))->getStatus());
    }

    public function testAGlobalSessionMiddlewareStillSavesNothingForARequestThatFailed(): void
    {
        $store = new MemoryStore();
        $app = new App();
        $app->setErrorLogger(static function (): void {
        });
        $app->middleware(new SessionMiddleware($store));
        $app->get('/ok', static function (Request $r): string {
            Session::from($r)->set('x', 1);

            return 'saved';
        });
        $app->get('/fail', static function (Request $r): never {
            Session::from($r)->set('x', 1);
            throw new \RuntimeException('boom');
        });
        $failed = $app->handle(Request::create('GET', '/fail'));
        self::assertSame([500, [], 0], [$failed->getStatus(), $failed->getCookies(), $store->count()]);
        $ok = $app->handle(Request::create('GET', '/ok'));
        self::assertSame([200, 1], [$ok->getStatus(), $store->count()]);
        self::assertCount(1, $ok->getCookies());
    }

    /**
     * The README's security-headers middleware inside the session middleware, a custom 404
     * page outside: the header it adds made a copy of the error response, which the App no
     * longer recognised, so the session was saved after its handler threw and the custom
     * page never showed. The mark travels with the copies.
     */
    public function testAnErrorResponseStaysOneThroughAMiddlewareThatAddsAHeader(): void
    {
        $store = new MemoryStore();
        $app = new App();
        $app->setErrorLogger(static function (): void {
        });
        $app->middleware(static function (Request $request, RequestHandler $next): Response {
            $response = $next->handle($request);

            return RenderedError::of($response) instanceof NotFound ? Response::text('our own 404', 404) : $response;
        });
        $app->middleware(new SessionMiddleware($store));
        $app->middleware(static fn (Request $request, RequestHandler $next): Response => $next->handle($request)->withHeader('X-Content-Type-Options', 'nosniff'));
        $app->get('/fail', static function (Request $r): never {
            Session::from($r)->set('user', 'admin');
            throw new \RuntimeException('boom');
        });

        $failed = $app->handle(Request::create('GET', '/fail'));
        self::assertSame([500, 'nosniff', [], 0], [$failed->getStatus(), $failed->getHeader('X-Content-Type-Options'), $failed->getCookies(), $store->count()]);
        self::assertInstanceOf(\RuntimeException::class, RenderedError::of($failed));
        $missing = $app->handle(Request::create('GET', '/nope'));
        self::assertSame([404, 'our own 404'], [$missing->getStatus(), $missing->getBody()]);
    }
}
