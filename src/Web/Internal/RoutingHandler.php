<?php

declare(strict_types=1);

namespace Petrel\Web\Internal;

use Closure;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Web\Error\BadRequest;
use Petrel\Web\Error\MethodNotAllowed;
use Petrel\Web\Error\NotFound;
use Petrel\Web\Error\RenderedError;
use Petrel\Web\Routing\Route;
use Petrel\Web\Routing\RouteResult;
use Petrel\Web\Routing\Router;
use Psr\Container\ContainerInterface;
use Throwable;

/**
 * The end of the global middleware chain: routes the request, then runs the route's own
 * chain (group and route middleware, then its RouteHandler) with the RouteResult stored as
 * the request attribute RouteResult::class. 404/405/400 are HttpErrors.
 *
 * It is also the innermost error boundary (see ErrorBoundary): whatever routing and the
 * route's chain throw is rendered here, so the global middleware see error responses with
 * every header they add. Doing it here rather than in an ErrorBoundary around it saves a
 * call per request.
 *
 * Each route's chain is built the first time the route is hit (middleware resolved,
 * handler reflected) and kept for the life of the worker.
 *
 * @internal
 */
final class RoutingHandler implements RequestHandler
{
    /** @var array<int, RequestHandler> by spl_object_id of the Route */
    private array $chains = [];

    /** @var array<string, array<string, RouteResult>> the router's static routes: [method][path] */
    private readonly array $static;

    /**
     * @param Closure(Throwable, Request): Response $render renders (and logs a 500)
     * @param array<class-string, object> $fixed objects injected into handlers by exact type
     */
    public function __construct(
        private readonly Router $router,
        private readonly MiddlewareResolver $middleware,
        private readonly ContainerInterface $container,
        private readonly Closure $render,
        private readonly array $fixed = [],
    ) {
        $this->static = $router->staticResults();
    }

    public function handle(Request $request): Response
    {
        try {
            $method = $request->getMethod();
            // A target spelled exactly as a static route's path is that path: static paths
            // are canonical, so they hold no "?" (nor anything else getPath() would cut or
            // rewrite). One lookup then routes the request, where getPath() and dispatch()
            // cost ~1,300 instructions.
            $result = $this->static[$method][$request->getTarget()] ?? $this->router->dispatch($method, $request->getPath());
            if ($result->route === null) {
                throw match ($result->status) {
                    RouteResult::METHOD_NOT_ALLOWED => new MethodNotAllowed($result->allowedMethods),
                    RouteResult::BAD_REQUEST => new BadRequest('Malformed path: invalid UTF-8 or NUL in a parameter'),
                    default => new NotFound(),
                };
            }
            $chain = $this->chains[\spl_object_id($result->route)] ??= $this->chain($result->route);

            return $chain->handle($request->withAttribute(RouteResult::class, $result));
        } catch (Throwable $error) {
            return RenderedError::record(($this->render)($error, $request), $error);
        }
    }

    private function chain(Route $route): RequestHandler
    {
        return MiddlewareLink::chain(
            $this->middleware->resolveAll($route->getMiddleware()),
            new RouteHandler($route, $this->container, $this->fixed),
        );
    }
}
