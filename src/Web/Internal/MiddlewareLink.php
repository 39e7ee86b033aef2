<?php

declare(strict_types=1);

namespace Petrel\Web\Internal;

use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Web\Middleware;

/**
 * One link of a middleware chain: runs the middleware with the rest of the chain as $next.
 * Chains are built once per route (for the global middleware, see ErrorBoundary) and shared
 * by all requests, so running a request through N middleware allocates nothing here.
 *
 * @internal
 */
final class MiddlewareLink implements RequestHandler
{
    public function __construct(private readonly Middleware $middleware, private readonly RequestHandler $next)
    {
    }

    /** @param list<Middleware> $middleware outermost first */
    public static function chain(array $middleware, RequestHandler $last): RequestHandler
    {
        for ($i = \count($middleware) - 1; $i >= 0; $i--) {
            $last = new self($middleware[$i], $last);
        }

        return $last;
    }

    public function handle(Request $request): Response
    {
        return $this->middleware->process($request, $this->next);
    }
}
