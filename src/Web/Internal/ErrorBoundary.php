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
 * (RenderedError::of()). Each boundary but the innermost runs the next global middleware
 * itself (chain()), rather than through a MiddlewareLink: the outermost middleware is
 * linked as usual, and what it throws reaches the App, which renders it the same way.
 *
 * @internal built by App::compile(): one around routing, and one per global middleware
 *     but the outermost
 */
final class ErrorBoundary implements RequestHandler
{
    /**
     * @param Closure(Throwable, Request): Response $render renders (and logs a 500)
     * @param Middleware|null $middleware run with $next as its own $next, inside the
     *     boundary: a MiddlewareLink folded in (a call less per global middleware)
     */
    public function __construct(
        private readonly RequestHandler $next,
        private readonly Closure $render,
        private readonly ?Middleware $middleware = null,
    ) {
    }

    /** @param list<Middleware> $middleware outermost first */
    public static function chain(array $middleware, RequestHandler $last, Closure $render): RequestHandler
    {
        $last = new self($last, $render);
        for ($i = \count($middleware) - 1; $i > 0; $i--) {
            $last = new self($last, $render, $middleware[$i]);
        }

        // The outermost middleware's own exceptions go to the App, which renders them too.
        return $middleware === [] ? $last : new MiddlewareLink($middleware[0], $last);
    }

    public function handle(Request $request): Response
    {
        try {
            return $this->middleware === null ? $this->next->handle($request) : $this->middleware->process($request, $this->next);
        } catch (Throwable $error) {
            return RenderedError::record(($this->render)($error, $request), $error);
        }
    }
}
