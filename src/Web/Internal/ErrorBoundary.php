<?php

declare(strict_types=1);

namespace Petrel\Web\Internal;

use Closure;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Web\Error\RenderedError;
use Petrel\Web\Middleware;
use Throwable;

/**
 * What a global middleware gets as $next: the rest of the pipeline, with any exception it
 * throws turned into the error response right there (404/405/400 from routing, an
 * HttpError, a 500), so the middleware's "after" part runs on error responses too and the
 * headers it adds are on them. The exception stays findable from the response it became
 * (RenderedError::of()). Each boundary runs the next global middleware itself (chain()),
 * rather than through a MiddlewareLink; the innermost boundary is RoutingHandler's own, and
 * the outermost middleware is run by the App, which renders what it throws the same way.
 *
 * @internal built by App::compile(): one per global middleware but the outermost
 */
final class ErrorBoundary implements RequestHandler
{
    /**
     * @param Middleware $middleware run with $next as its own $next, inside the boundary: a
     *     MiddlewareLink folded in (a call less per global middleware)
     * @param Closure(Throwable, Request): Response $render renders (and logs a 500)
     */
    public function __construct(
        private readonly Middleware $middleware,
        private readonly RequestHandler $next,
        private readonly Closure $render,
    ) {
    }

    /**
     * What the outermost global middleware gets as $next: each of the others inside a
     * boundary, the innermost around $last. (The outermost's own exceptions go to the App,
     * which renders them too.)
     *
     * @param list<Middleware> $middleware all but the outermost, outermost first
     * @param RequestHandler $last renders its own exceptions, as RoutingHandler does
     */
    public static function chain(array $middleware, RequestHandler $last, Closure $render): RequestHandler
    {
        for ($i = \count($middleware) - 1; $i >= 0; $i--) {
            $last = new self($middleware[$i], $last, $render);
        }

        return $last;
    }

    public function handle(Request $request): Response
    {
        try {
            return $this->middleware->process($request, $this->next);
        } catch (Throwable $error) {
            return RenderedError::record(($this->render)($error, $request), $error);
        }
    }
}
