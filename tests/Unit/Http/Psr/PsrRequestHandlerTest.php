<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http\Psr;

use Nyholm\Psr7\Factory\Psr17Factory;
use Petrel\Http\ClosureHandler;
use Petrel\Http\Cookie;
use Petrel\Http\FileBody;
use Petrel\Http\Psr\Internal\RoundTrip;
use Petrel\Http\Psr\PetrelRequestHandler;
use Petrel\Http\Psr\PsrRequestHandler;
use Petrel\Http\Request;
use Petrel\Http\Response;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;

/**
 * A PSR-15 app run on Petrel (PsrRequestHandler) whose pipeline ends in a Petrel handler
 * (PetrelRequestHandler): what PSR-7 cannot carry of the Petrel handler's response (after-
 * send callbacks, Cookie objects, the rendered error) goes on when the middleware returns
 * that response or re-heads it, and never to a response built from scratch, nor to another
 * request's; the Petrel handler gets the original Petrel request when it was passed on.
 */
#[CoversClass(PsrRequestHandler::class)]
#[CoversClass(PetrelRequestHandler::class)]
#[CoversClass(RoundTrip::class)]
final class PsrRequestHandlerTest extends TestCase
{
    /**
     * A PSR-15 pipeline: each middleware a closure, the last handler $last.
     *
     * @param list<\Closure(ServerRequestInterface, RequestHandlerInterface): ResponseInterface> $middleware
     */
    private static function pipeline(array $middleware, RequestHandlerInterface $last): RequestHandlerInterface
    {
        return new class ($middleware, $last) implements RequestHandlerInterface {
            /** @param list<\Closure(ServerRequestInterface, RequestHandlerInterface): ResponseInterface> $middleware */
            public function __construct(private readonly array $middleware, private readonly RequestHandlerInterface $last)
            {
            }

            public function handle(ServerRequestInterface $request): ResponseInterface
            {
                if ($this->middleware === []) {
                    return $this->last->handle($request);
                }
                $rest = $this->middleware;
                $first = \array_shift($rest);

                return $first($request, new self($rest, $this->last));
            }
        };
    }

    /** @param list<\Closure(ServerRequestInterface, RequestHandlerInterface): ResponseInterface> $middleware */
    private static function app(array $middleware, \Closure $action): PsrRequestHandler
    {
        return new PsrRequestHandler(self::pipeline($middleware, new PetrelRequestHandler(new ClosureHandler($action))));
    }

    /** @return \Closure(ServerRequestInterface, RequestHandlerInterface): ResponseInterface */
    private static function passThrough(): \Closure
    {
        return static fn (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface => $next->handle($request);
    }

    /** @return \Closure(ServerRequestInterface, RequestHandlerInterface): ResponseInterface */
    private static function securityHeaders(): \Closure
    {
        return static fn (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface => $next->handle($request)->withHeader('X-Frame-Options', 'DENY')->withStatus(203);
    }

    private static function runAfterSend(Response $response): void
    {
        foreach ($response->getAfterSend() as $callback) {
            $callback(); // as the connection does once the response is written
        }
    }

    /**
     * The response was rebuilt from PSR-7 on the way out: the after-send callback (a
     * Symfony kernel.terminate, a mail sent after the page) never ran, the Cookie object
     * became a raw Set-Cookie line, the rendered error was gone.
     */
    public function testAPipelineThatReHeadsThePetrelResponseKeepsItsAfterSendCookiesAndError(): void
    {
        $ran = [];
        $error = new \RuntimeException('rendered');
        $cookie = new Cookie('sid', 'abc');
        $app = self::app([self::passThrough(), self::securityHeaders()], static function () use (&$ran, $cookie, $error): Response {
            return Response::text('page')
                ->withCookie($cookie)
                ->withAfterSend(static function () use (&$ran): void {
                    $ran[] = 'terminate';
                })
                ->withRenderedFrom($error);
        });

        $response = $app->handle(Request::create('GET', '/'));
        self::runAfterSend($response);

        self::assertSame(['terminate'], $ran);
        self::assertSame([$cookie], \array_values($response->getCookies()));
        self::assertFalse($response->hasHeader('Set-Cookie'), 'the cookie is not also a raw line');
        self::assertSame($error, $response->getRenderedFrom());
        self::assertSame([203, 'DENY', 'page'], [$response->getStatus(), $response->getHeader('X-Frame-Options'), $response->getBody()]);
    }

    /** Returned untouched, the Petrel handler's response is sent as it is: a file as a file, not a copy. */
    public function testAPassThroughPipelineSendsThePetrelResponseItself(): void
    {
        $inner = new Response(200, ['Content-Type' => 'application/zip'], new FileBody(__FILE__));
        $app = self::app([self::passThrough(), self::passThrough()], static fn () => $inner);

        self::assertSame($inner, $app->handle(Request::create('GET', '/')));
    }

    /**
     * The Petrel handler got a request converted back from PSR-7: its remote address was
     * lost, its body copied, its form parsed again. Passed on unchanged, it is the original;
     * changed, it keeps what the middleware left alone, and the round trip is not among its
     * attributes.
     */
    public function testThePetrelHandlerGetsTheOriginalRequestOrOneKeepingWhatTheAppLeftAlone(): void
    {
        $original = new Request('POST', '/form', '1.1', ['host' => ['app.example'], 'content-type' => ['application/x-www-form-urlencoded']], 'a=1', [], '192.0.2.1:5000');
        $seen = [];
        $action = static function (Request $request) use (&$seen): Response {
            $seen[] = $request;

            return Response::text('ok');
        };
        $addUser = static fn (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface => $next->handle($request->withAttribute('user', 'ada'));

        self::app([self::passThrough()], $action)->handle($original);
        self::app([$addUser], $action)->handle($original);

        self::assertSame($original, $seen[0]);
        self::assertSame(['192.0.2.1:5000', ['a' => '1'], ['user' => 'ada']], [$seen[1]->getRemoteAddress(), $seen[1]->getParsedBody(), $seen[1]->getAttributes()]);
    }

    /** Built from scratch, even with the inner headers copied, a response inherits nothing: the lines are lines. */
    public function testAResponseBuiltFromScratchInheritsNothing(): void
    {
        $scratch = static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            $inner = $next->handle($request);
            $response = (new Psr17Factory())->createResponse(200)->withBody($inner->getBody());
            foreach ($inner->getHeaders() as $name => $values) {
                $response = $response->withHeader($name, $values);
            }

            return $response;
        };
        $app = self::app([$scratch], static fn () => Response::text('page')->withCookie(new Cookie('sid', 'abc'))->withAfterSend(static fn () => null));

        $response = $app->handle(Request::create('GET', '/'));

        self::assertSame([[], [], 'sid=abc; Path=/; HttpOnly; SameSite=Lax'], [$response->getAfterSend(), $response->getCookies(), $response->getHeader('Set-Cookie')]);
    }

    /**
     * The handlers serve every request of the worker at once: a response a middleware kept
     * from the first request (a cache) gets neither that request's callbacks nor those of
     * the request it is returned for, whether the handler ran for it or not.
     */
    public function testAResponseKeptFromAnotherRequestInheritsNothing(): void
    {
        $kept = null;
        $cache = static function (ServerRequestInterface $request, RequestHandlerInterface $next) use (&$kept): ResponseInterface {
            if ($request->getQueryParams() === ['skip' => '1'] && $kept !== null) {
                return $kept;
            }
            $response = $next->handle($request);

            return $kept ??= $response;
        };
        $ran = [];
        $app = self::app([$cache], static function (Request $request) use (&$ran): Response {
            return Response::text($request->getTarget())->withAfterSend(static function () use (&$ran, $request): void {
                $ran[] = $request->getTarget();
            });
        });

        $first = $app->handle(Request::create('GET', '/first'));
        $second = $app->handle(Request::create('GET', '/second'));
        $third = $app->handle(Request::create('GET', '/third?skip=1'));

        self::runAfterSend($first);
        self::runAfterSend($second);
        self::runAfterSend($third);
        self::assertSame(['/first'], $ran);
        self::assertSame(['/first', '/first', '/first'], [$first->getBody(), $second->getBody(), $third->getBody()]);
    }

    /**
     * Two requests in flight at once (two coroutines), both Petrel responses back before
     * either is answered: each keeps its own callback ("the last inner response" held by
     * the shared handlers would have been the second request's for both).
     */
    public function testInterleavedRequestsKeepTheirOwnResponses(): void
    {
        $ran = [];
        $suspend = static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            $response = $next->handle($request);
            \Fiber::suspend();

            return $response->withHeader('X-Frame-Options', 'DENY');
        };
        $app = self::app([$suspend], static function (Request $request) use (&$ran): Response {
            return Response::text($request->getTarget())->withAfterSend(static function () use (&$ran, $request): void {
                $ran[] = $request->getTarget();
            });
        });
        $a = new \Fiber(static fn () => $app->handle(Request::create('GET', '/a')));
        $b = new \Fiber(static fn () => $app->handle(Request::create('GET', '/b')));
        $a->start();
        $b->start();
        $a->resume();
        $b->resume();

        foreach ([$b->getReturn(), $a->getReturn()] as $response) {
            self::assertInstanceOf(Response::class, $response);
            self::runAfterSend($response);
        }
        self::assertSame(['/b', '/a'], $ran);
    }

    /** A retry middleware calls its handler twice: the response it returns keeps its own callback only. */
    public function testTheResponseOfTheLastCallIsTheOneReused(): void
    {
        $ran = [];
        $count = 0;
        $retry = static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            $response = $next->handle($request);

            return $response->getStatusCode() === 503 ? $next->handle($request) : $response;
        };
        $app = self::app([$retry], static function () use (&$ran, &$count): Response {
            $attempt = ++$count;

            return Response::text('', $attempt === 1 ? 503 : 200)->withAfterSend(static function () use (&$ran, $attempt): void {
                $ran[] = $attempt;
            });
        });

        self::runAfterSend($app->handle(Request::create('GET', '/')));

        self::assertSame([2], $ran);
    }

    /** Outside an app run by PsrRequestHandler, PetrelRequestHandler converts as before: a Set-Cookie line, a converted request. */
    public function testPetrelRequestHandlerStandaloneConvertsBothWays(): void
    {
        $seen = null;
        $handler = new PetrelRequestHandler(new ClosureHandler(static function (Request $request) use (&$seen): Response {
            $seen = $request;

            return Response::text('hi')->withCookie(new Cookie('sid', 'abc'));
        }));
        $psr = (new Psr17Factory())->createServerRequest('GET', 'http://app.example/a?b=1')->withAttribute(PsrRequestHandler::ROUND_TRIP_ATTRIBUTE, 'not ours');

        $response = $handler->handle($psr);

        self::assertSame(['sid=abc; Path=/; HttpOnly; SameSite=Lax'], $response->getHeader('Set-Cookie'));
        self::assertSame('hi', (string) $response->getBody());
        self::assertInstanceOf(Request::class, $seen);
        self::assertSame(['/a?b=1', ['b' => '1'], null], [$seen->getTarget(), $seen->getQuery(), $seen->getRemoteAddress()]);
    }

    /** A middleware serializing the request (a queue) cannot serialize the Petrel response: the round trip comes back ended. */
    public function testASerializedRoundTripComesBackEnded(): void
    {
        $copy = static function (ServerRequestInterface $request, RequestHandlerInterface $next): ResponseInterface {
            $trip = \unserialize(\serialize($request->getAttribute(PsrRequestHandler::ROUND_TRIP_ATTRIBUTE)));

            return $next->handle($request->withAttribute(PsrRequestHandler::ROUND_TRIP_ATTRIBUTE, $trip));
        };
        $app = self::app([$copy], static fn () => Response::text('page')->withAfterSend(static fn () => null));

        self::assertSame([], $app->handle(Request::create('GET', '/'))->getAfterSend());
    }
}
