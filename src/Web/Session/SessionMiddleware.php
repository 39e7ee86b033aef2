<?php

declare(strict_types=1);

namespace Petrel\Web\Session;

use Petrel\Coroutine\Context;
use Petrel\Http\Cookie;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Web\Error\RenderedError;
use Petrel\Web\Middleware;

/**
 * Gives each request its {@see Session}: as the request attribute Session::class and in the
 * coroutine's Context under Session::class (Session::from() finds either). After the
 * handler returns, the session is saved if it changed (or is new and non-empty) and the
 * cookie is set: HttpOnly, SameSite=Lax by default, Path=/, Secure when $secure (turn it on
 * behind HTTPS). A cookie whose value is not a well-formed session id is ignored (a new
 * session starts); so is an id the store does not know.
 *
 * If the handler throws, the session is not saved (like a rolled-back transaction): the
 * exception goes on (route and group middleware), or, as global middleware, the error
 * response the App rendered from it passes through unsaved (RenderedError). Return an error
 * response instead of throwing when the session changes (a flash message, say) must be kept.
 *
 * One instance serves the whole worker; it keeps no per-request state.
 */
final class SessionMiddleware implements Middleware
{
    public const DEFAULT_COOKIE = 'petrel_session';

    /**
     * @param int $ttl seconds an idle session is kept in the store
     * @param int|null $cookieLifetime seconds the browser keeps the cookie (refreshed on each
     *        save); null: until the browser closes
     * @param 'Lax'|'Strict'|'None' $sameSite 'None' needs $secure
     */
    public function __construct(
        private readonly SessionStore $store,
        private readonly string $cookieName = self::DEFAULT_COOKIE,
        private readonly int $ttl = Session::DEFAULT_TTL,
        private readonly ?int $cookieLifetime = null,
        private readonly bool $secure = false,
        private readonly string $path = '/',
        private readonly ?string $domain = null,
        private readonly string $sameSite = 'Lax',
    ) {
        if ($ttl < 1 || ($cookieLifetime !== null && $cookieLifetime < 1)) {
            throw new SessionError('The session TTL and cookie lifetime must be at least 1 second');
        }
        if (\strcasecmp($sameSite, 'None') === 0 && !$secure) {
            throw new SessionError('SameSite=None cookies must be Secure: pass secure: true');
        }
        new Cookie($cookieName, '', null, null, $path, $domain, $secure, true, $sameSite); // validates name, path, domain
    }

    public function process(Request $request, RequestHandler $next): Response
    {
        $cookie = $request->getCookie($this->cookieName);
        $session = new Session($this->store, $cookie, $this->ttl);
        $hadOuter = Context::has(Session::class);
        $outer = Context::get(Session::class);
        Context::set(Session::class, $session);
        try {
            $response = $next->handle($request->withAttribute(Session::class, $session));
        } finally {
            // A connection's coroutine serves its keep-alive requests one after another.
            $hadOuter ? Context::set(Session::class, $outer) : Context::delete(Session::class);
        }
        if (RenderedError::of($response) !== null) {
            return $response;
        }
        $id = $session->save();
        if ($id === '') {
            return $response->withCookie(Cookie::expired($this->cookieName, $this->path, $this->domain));
        }
        if ($id !== null && ($id !== $cookie || $this->cookieLifetime !== null)) {
            return $response->withCookie(new Cookie(
                $this->cookieName,
                $id,
                $this->cookieLifetime === null ? null : \time() + $this->cookieLifetime,
                $this->cookieLifetime,
                $this->path,
                $this->domain,
                $this->secure,
                true,
                $this->sameSite,
            ));
        }

        return $response;
    }
}
