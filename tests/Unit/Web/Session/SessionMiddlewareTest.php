<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Session;

use Closure;
use Petrel\Coroutine\Context;
use Petrel\Http\ClosureHandler;
use Petrel\Http\Cookie;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Web\Session\Internal\SessionId;
use Petrel\Web\Session\Session;
use Petrel\Web\Session\SessionError;
use Petrel\Web\Session\SessionMiddleware;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\go;

#[CoversClass(SessionMiddleware::class)]
#[CoversClass(Session::class)]
final class SessionMiddlewareTest extends AsyncTestCase
{
    private SpyStore $store;

    protected function setUp(): void
    {
        parent::setUp();
        $this->store = new SpyStore();
    }

    public function testSessionRoundTripThroughTheCookie(): void
    {
        $middleware = new SessionMiddleware($this->store);

        $first = $this->send($middleware, null, static function (Request $request): Response {
            Session::from($request)->set('user', 42);

            return Response::text('logged in');
        });
        $id = $this->sessionCookie($first);
        self::assertNotNull($id);
        self::assertTrue(SessionId::isValid($id->value));
        self::assertSame("petrel_session={$id->value}; Path=/; HttpOnly; SameSite=Lax", $id->toHeaderValue());

        $second = $this->send($middleware, $id->value, static fn (Request $request): Response => Response::text(
            (string) Session::from($request)->get('user'),
        ));
        self::assertSame('42', $second->getBody());
        self::assertNull($this->sessionCookie($second), 'same id, nothing changed: no Set-Cookie');
        self::assertSame([$id->value], $this->store->callsOf('write'));
    }

    public function testRequestsThatDoNotTouchTheSessionDoNotReachTheStore(): void
    {
        $response = $this->send(new SessionMiddleware($this->store), SessionId::generate(), static fn (): Response => Response::text('ok'));

        self::assertSame([], $this->store->calls);
        self::assertSame([], $response->getCookies());
    }

    public function testANewSessionThatStaysEmptyIsNotStored(): void
    {
        $response = $this->send(new SessionMiddleware($this->store), null, static function (Request $request): Response {
            Session::from($request)->get('user');

            return Response::text('anonymous');
        });

        self::assertSame([], $this->store->callsOf('write'));
        self::assertSame([], $response->getCookies());
    }

    public function testFlashLifecycleAcrossRequests(): void
    {
        $middleware = new SessionMiddleware($this->store);
        $showFlash = static fn (Request $request): Response => Response::text(
            (string) Session::from($request)->getFlash('notice', 'none'),
        );

        $post = $this->send($middleware, null, static function (Request $request): Response {
            Session::from($request)->set('user', 1);
            Session::from($request)->flash('notice', 'Saved!');

            return Response::redirect('/');
        });
        $id = $this->sessionCookie($post)?->value;
        self::assertNotNull($id);

        $static = $this->send($middleware, $id, static fn (): Response => Response::text('asset'));
        self::assertSame('asset', $static->getBody(), 'a request that never loads the session leaves the flash alone');

        self::assertSame('Saved!', $this->send($middleware, $id, $showFlash)->getBody());
        self::assertSame('none', $this->send($middleware, $id, $showFlash)->getBody());
    }

    public function testRegenerateSendsANewIdAndDeletesTheOldOne(): void
    {
        $middleware = new SessionMiddleware($this->store);
        $guest = $this->send($middleware, null, static function (Request $request): Response {
            Session::from($request)->set('cart', [3]);

            return Response::text('');
        });
        $old = (string) $this->sessionCookie($guest)?->value;

        $login = $this->send($middleware, $old, static function (Request $request): Response {
            $session = Session::from($request);
            $session->regenerateId();
            $session->set('user', 9);

            return Response::text($session->id());
        });
        $new = $this->sessionCookie($login)?->value;

        self::assertNotNull($new);
        self::assertNotSame($old, $new);
        self::assertSame($new, $login->getBody());
        self::assertNull($this->store->inner->read($old));
        self::assertSame(['destroy ' . $old], \array_values(\array_filter($this->store->calls, static fn (string $c): bool => \str_starts_with($c, 'destroy'))));
        $after = $this->send($middleware, $new, static fn (Request $r): Response => Response::json(Session::from($r)->all()));
        self::assertSame('{"cart":[3],"user":9}', $after->getBody());
        $stale = $this->send($middleware, $old, static fn (Request $r): Response => Response::json(Session::from($r)->all()));
        self::assertSame('[]', $stale->getBody(), 'the old id no longer opens the session');
    }

    public function testUnknownAndMalformedCookiesStartANewSession(): void
    {
        $middleware = new SessionMiddleware($this->store);
        $setValue = static function (Request $request): Response {
            Session::from($request)->set('x', 1);

            return Response::text('');
        };

        $unknown = SessionId::generate();
        $fresh = $this->sessionCookie($this->send($middleware, $unknown, $setValue))?->value;
        self::assertNotNull($fresh);
        self::assertNotSame($unknown, $fresh);

        foreach (['short', \str_repeat('*', 43), $fresh . 'x', 'a%00' . \substr($fresh, 3)] as $malformed) {
            $issued = $this->sessionCookie($this->send($middleware, $malformed, $setValue))?->value;
            self::assertNotNull($issued);
            self::assertNotSame($malformed, $issued);
        }
        self::assertSame([$unknown], $this->store->callsOf('read'), 'malformed ids never reach the store');
    }

    public function testAnUnknownCookieOnAnUnusedSessionIsDeleted(): void
    {
        $response = $this->send(new SessionMiddleware($this->store), SessionId::generate(), static function (Request $request): Response {
            Session::from($request)->get('x');

            return Response::text('');
        });

        self::assertSame('petrel_session=; Expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=0; Path=/; HttpOnly; SameSite=Lax', $this->sessionCookie($response)?->toHeaderValue());
    }

    public function testClearingTheSessionDeletesItAndItsCookie(): void
    {
        $middleware = new SessionMiddleware($this->store);
        $login = $this->send($middleware, null, static function (Request $request): Response {
            Session::from($request)->set('user', 1);

            return Response::text('');
        });
        $id = (string) $this->sessionCookie($login)?->value;

        $logout = $this->send($middleware, $id, static function (Request $request): Response {
            Session::from($request)->clear();

            return Response::redirect('/');
        });

        self::assertSame(0, $this->sessionCookie($logout)?->maxAge);
        self::assertNull($this->store->inner->read($id));
    }

    public function testCookieOptions(): void
    {
        $middleware = new SessionMiddleware(
            $this->store,
            cookieName: 'sid',
            cookieLifetime: 3600,
            secure: true,
            path: '/app',
            domain: 'example.com',
            sameSite: 'Strict',
        );
        $now = \time();

        $response = $this->send($middleware, null, static function (Request $request): Response {
            Session::from($request)->set('x', 1);

            return Response::text('');
        }, 'sid');
        $cookie = $this->sessionCookie($response, 'sid');

        self::assertNotNull($cookie);
        self::assertSame(3600, $cookie->maxAge);
        self::assertIsInt($cookie->expires);
        self::assertEqualsWithDelta($now + 3600, $cookie->expires, 2);
        self::assertSame(
            "sid={$cookie->value}; Expires=" . \gmdate('D, d M Y H:i:s', $cookie->expires) . ' GMT; Max-Age=3600; Path=/app; Domain=example.com; Secure; HttpOnly; SameSite=Strict',
            $cookie->toHeaderValue(),
        );

        // A persistent cookie is sent again whenever the session is written (sliding expiry).
        $again = $this->send($middleware, $cookie->value, static function (Request $request): Response {
            Session::from($request)->set('x', 2);

            return Response::text('');
        }, 'sid');
        self::assertSame($cookie->value, $this->sessionCookie($again, 'sid')?->value);
    }

    public function testInvalidOptionsAreMisuse(): void
    {
        foreach ([
            static fn (SpyStore $s) => new SessionMiddleware($s, sameSite: 'None'),
            static fn (SpyStore $s) => new SessionMiddleware($s, ttl: 0),
            static fn (SpyStore $s) => new SessionMiddleware($s, cookieLifetime: 0),
        ] as $i => $make) {
            try {
                $make($this->store);
                self::fail("case {$i}: expected a SessionError");
            } catch (SessionError) {
                $this->addToAssertionCount(1);
            }
        }
        $this->expectException(\ValueError::class);
        new SessionMiddleware($this->store, cookieName: 'bad name');
    }

    public function testTheSessionIsInTheContextDuringTheRequestOnly(): void
    {
        $middleware = new SessionMiddleware($this->store);

        $this->async(function () use ($middleware): void {
            Context::set(Session::class, 'outer'); // e.g. left by an earlier request on this connection
            $response = $this->send($middleware, null, function (Request $request): Response {
                $fromContext = Session::from();
                self::assertSame($request->getAttribute(Session::class), $fromContext);
                $fromChild = go(static fn (): Session => Session::from())->join(); // child coroutines inherit it
                self::assertSame($fromContext, $fromChild);
                $fromContext->set('seen', true);

                return Response::text('');
            });

            self::assertNotNull($this->sessionCookie($response));
            self::assertSame('outer', Context::get(Session::class));
        });
    }

    public function testConcurrentRequestsEachGetTheirOwnSession(): void
    {
        $middleware = new SessionMiddleware($this->store);
        $ids = [];
        foreach (['a', 'b', 'c'] as $user) {
            $ids[$user] = (string) $this->sessionCookie($this->send($middleware, null, static function (Request $request) use ($user): Response {
                Session::from($request)->set('user', $user);

                return Response::text('');
            }))?->value;
        }

        $bodies = $this->async(function () use ($middleware, $ids): array {
            $requests = [];
            foreach ($ids as $user => $id) {
                $requests[$user] = go(fn (): mixed => $middleware->process(
                    Request::create('GET', '/', ['Cookie' => "petrel_session={$id}"]),
                    new ClosureHandler(static function (Request $request): Response {
                        $before = Session::from()->get('user');
                        \Petrel\sleep(0.005);

                        return Response::text($before . '=' . Session::from()->get('user') . '=' . Session::from($request)->get('user'));
                    }),
                )->getBody());
            }

            return \array_map(static fn ($c): mixed => $c->join(), $requests);
        });

        self::assertSame(['a' => 'a=a=a', 'b' => 'b=b=b', 'c' => 'c=c=c'], $bodies);
    }

    public function testAHandlerThatThrowsLeavesTheStoredSessionUnchanged(): void
    {
        $middleware = new SessionMiddleware($this->store);
        try {
            $this->send($middleware, null, static function (Request $request): Response {
                Session::from($request)->set('x', 1);
                throw new \RuntimeException('boom');
            });
            self::fail('Expected the exception to go on');
        } catch (\RuntimeException $e) {
            self::assertSame('boom', $e->getMessage());
        }
        self::assertSame([], $this->store->callsOf('write'));
        self::assertFalse(Context::has(Session::class));
    }

    /** @param Closure(Request): Response $handler */
    private function send(SessionMiddleware $middleware, ?string $cookie, Closure $handler, string $name = 'petrel_session'): Response
    {
        $headers = $cookie === null ? [] : ['Cookie' => $name . '=' . \rawurlencode($cookie)];

        return $middleware->process(Request::create('GET', '/', $headers), new ClosureHandler($handler));
    }

    private function sessionCookie(Response $response, string $name = 'petrel_session'): ?Cookie
    {
        foreach ($response->getCookies() as $cookie) {
            if ($cookie->name === $name) {
                return $cookie;
            }
        }

        return null;
    }
}
