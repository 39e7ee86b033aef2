<?php

declare(strict_types=1);

namespace Petrel\Web\Session;

use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Web\Middleware;

/**
 * Rejects state-changing requests that do not carry the session's CSRF token.
 *
 * Safe methods (GET, HEAD, OPTIONS, TRACE) pass. Every other method must send the token in
 * the X-CSRF-Token header or the form field "_token" (urlencoded or multipart body); it is
 * compared with hash_equals() (timing-safe). A missing or wrong token, or a session that has
 * no token, throws {@see CsrfTokenMismatch} (403, rendered by the App like any HttpError).
 *
 * Runs after SessionMiddleware. Paths in $except skip the check: exact paths, or prefixes
 * when they end with '*' ("/webhooks/*").
 */
final class CsrfMiddleware implements Middleware
{
    private const SAFE_METHODS = ['GET' => true, 'HEAD' => true, 'OPTIONS' => true, 'TRACE' => true];

    /** @param list<string> $except paths that skip the check */
    public function __construct(private readonly array $except = [])
    {
    }

    public function process(Request $request, RequestHandler $next): Response
    {
        if (isset(self::SAFE_METHODS[$request->getMethod()]) || $this->isExempt($request->getPath())) {
            return $next->handle($request);
        }
        $expected = Session::from($request)->get(Csrf::SESSION_KEY);
        $given = $request->getHeader(Csrf::HEADER) ?? ($request->getParsedBody()[Csrf::FIELD] ?? null);
        if (!\is_string($expected) || $expected === '' || !\is_string($given) || !\hash_equals($expected, $given)) {
            throw new CsrfTokenMismatch();
        }

        return $next->handle($request);
    }

    private function isExempt(string $path): bool
    {
        foreach ($this->except as $pattern) {
            if ($pattern === $path || (\str_ends_with($pattern, '*') && \str_starts_with($path, \substr($pattern, 0, -1)))) {
                return true;
            }
        }

        return false;
    }
}
