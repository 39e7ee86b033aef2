<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing;

use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Http\StreamBody;
use Petrel\Tests\Unit\Web\Routing\Fixtures\AuthMiddleware;
use Petrel\Tests\Unit\Web\Routing\Fixtures\Greeter;
use Petrel\Tests\Unit\Web\Routing\Fixtures\Item;
use Petrel\Tests\Unit\Web\Routing\Fixtures\PsrTraceMiddleware;
use Petrel\Tests\Unit\Web\Routing\Fixtures\TraceMiddleware;
use Petrel\Web\App;
use Petrel\Web\Error\NotFound;
use Petrel\Web\Error\RenderedError;
use Petrel\Web\Internal\ClosureMiddleware;
use Petrel\Web\Internal\MiddlewareLink;
use Petrel\Web\Internal\MiddlewareResolver;
use Petrel\Web\Internal\PsrMiddlewareAdapter;
use Petrel\Web\Internal\PsrNextHandler;
use Petrel\Web\Routing\HandlerError;
use Petrel\Web\Routing\RouteGroup;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

/** Global → group → route middleware → handler and back; PSR-15 middleware; resolution. */
#[CoversClass(MiddlewareLink::class)]
#[CoversClass(MiddlewareResolver::class)]
#[CoversClass(ClosureMiddleware::class)]
#[CoversClass(PsrMiddlewareAdapter::class)]
#[CoversClass(PsrNextHandler::class)]
final class MiddlewarePipelineTest extends TestCase
{
    private function app(bool $debug = false): App
    {
        $app = new App(null, $debug);
        $app->setErrorLogger(static function (): void {
        });

        return $app;
    }

    /** @param array<string, string> $headers */
    private static function call(App $app, string $method, string $uri, array $headers = []): Response
    {
        return $app->handle(Request::create($method, $uri, $headers));
    }

    private static function body(Response $response): string
    {
        $body = $response->getBody();
        self::assertIsString($body);

        return $body;
    }

    public function testMiddlewareOrderGlobalGroupRouteHandlerAndBack(): void
    {
        $app = $this->app();
        $app->middleware(new TraceMiddleware('global1'), new TraceMiddleware('global2'));
        $app->group('/admin', static function (RouteGroup $admin): void {
            $admin->group('/users', static function (RouteGroup $users): void {
                $users->get('/{id}', static fn (Request $r) => Response::text(\implode(',', $r->getAttribute('trace'))))
                    ->middleware(new TraceMiddleware('route1'), new TraceMiddleware('route2'));
            }, [new TraceMiddleware('inner')]);
            $admin->middleware(new TraceMiddleware('outer-late'));
        }, [new TraceMiddleware('outer')]);

        $response = self::call($app, 'GET', '/admin/users/1');
        self::assertSame('global1,global2,outer,outer-late,inner,route1,route2', self::body($response));
        self::assertSame('route2, route1, inner, outer-late, outer, global2, global1', $response->getHeader('X-Out'));
    }

    public function testGlobalMiddlewareSeesTheExceptionBehindAnErrorResponse(): void
    {
        $app = $this->app();
        $app->middleware(static function (Request $request, RequestHandler $next): Response {
            $response = $next->handle($request);

            return RenderedError::of($response) instanceof NotFound ? Response::text('custom 404', 404) : $response;
        });
        $app->get('/', static fn () => 'home');
        self::assertSame('custom 404', self::body(self::call($app, 'GET', '/missing')));
        self::assertSame('home', self::body(self::call($app, 'GET', '/')));
    }

    public function testPsr15Middleware(): void
    {
        $app = $this->app();
        $app->middleware(new PsrTraceMiddleware('psr-global'), new TraceMiddleware('petrel'));
        $app->get('/{x}', static fn (Request $r, string $x) => Response::text(\implode(',', $r->getAttribute('trace')) . " {$x} " . $r->getRemoteAddress()))
            ->middleware(new PsrTraceMiddleware('psr-route'));
        $response = $app->handle(Request::create('GET', '/hi?a=b', ['X-A' => 'b'])->withRemoteAddress('10.0.0.1:5'));
        self::assertSame(200, $response->getStatus());
        self::assertSame('psr-global,petrel,psr-route hi 10.0.0.1:5', self::body($response));
        self::assertSame('psr-route, petrel, psr-global', $response->getHeader('X-Out'));
    }

    public function testPsr15MiddlewarePassingThroughKeepsTheResponseAndItsBody(): void
    {
        $app = $this->app();
        $stream = Response::stream(['a', 'b'], 'text/plain');
        $app->get('/same', static fn () => $stream)->middleware(new PsrTraceMiddleware(pass: true));
        $app->get('/reheaded', static fn () => $stream)->middleware(new PsrTraceMiddleware('psr'));
        self::assertSame($stream, self::call($app, 'GET', '/same'));
        $reheaded = self::call($app, 'GET', '/reheaded');
        self::assertInstanceOf(StreamBody::class, $reheaded->getBody());
        self::assertSame('psr', $reheaded->getHeader('X-Out'));
        self::assertSame('text/plain', $reheaded->getHeader('Content-Type'));
    }

    public function testPsr15MiddlewareLeavesTheRequestBodyUsable(): void
    {
        $app = $this->app();
        $app->post('/', static fn (Request $r) => Response::text($r->getBody()))->middleware(new PsrTraceMiddleware(pass: true));
        $request = Request::create('POST', '/', [], 'payload');
        self::assertSame('payload', self::body($app->handle($request)));
        self::assertSame('payload', self::body($app->handle($request)), 'the same Request again');
        self::assertSame('payload', $request->getBody());
    }

    public function testMiddlewareByClassNameIsResolvedOnceAndShared(): void
    {
        AuthMiddleware::$instances = 0;
        $app = $this->app();
        $app->middleware(AuthMiddleware::class);
        $app->get('/a', static fn () => 'a')->middleware(AuthMiddleware::class);
        $app->get('/b', static fn () => 'b')->middleware(AuthMiddleware::class);
        foreach (['/a', '/b', '/a', '/b'] as $path) {
            self::assertSame('auth, auth', self::call($app, 'GET', $path)->getHeader('X-Out'));
        }
        self::assertSame(1, AuthMiddleware::$instances);
    }

    public function testMiddlewareThatIsNotAMiddleware(): void
    {
        $app = $this->app(debug: true);
        $app->get('/', static fn () => 'x')->middleware(Greeter::class);
        $app->get('/item', static fn () => 'x')->middleware(Item::class);
        $response = self::call($app, 'GET', '/', ['Accept' => 'application/json']);
        self::assertSame(500, $response->getStatus());
        $message = \json_decode(self::body($response), true)['error']['debug']['message'] ?? null;
        self::assertSame('Middleware "' . Greeter::class . '" resolved to ' . Greeter::class . ', which implements neither Petrel\Web\Middleware nor Psr\Http\Server\MiddlewareInterface', $message);
        $response = self::call($app, 'GET', '/item', ['Accept' => 'application/json']);
        self::assertStringContainsString('cannot be built: Cannot resolve', self::body($response));
        $app2 = $this->app();
        $app2->middleware('no-such-service');
        $this->expectException(HandlerError::class);
        $this->expectExceptionMessage('Middleware "no-such-service" is not a service of the container');
        $app2->compile();
    }
}
