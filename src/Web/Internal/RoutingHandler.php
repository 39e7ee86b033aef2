<?php

declare(strict_types=1);

namespace Petrel\Web\Internal;

use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Web\Error\BadRequest;
use Petrel\Web\Error\MethodNotAllowed;
use Petrel\Web\Error\NotFound;
use Petrel\Web\Routing\Route;
use Petrel\Web\Routing\RouteResult;
use Petrel\Web\Routing\Router;
use Psr\Container\ContainerInterface;

/**
 * The end of the global middleware chain: routes the request, then runs the route's own
 * chain (group and route middleware, then its RouteHandler) with the RouteResult stored as
 * the request attribute RouteResult::class. 404/405/400 are thrown as HttpErrors, rendered
 * like any other error before they reach the global middleware (ErrorBoundary), so those
 * see error responses with every header they add.
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

    /** @param array<class-string, object> $fixed objects injected into handlers by exact type */
    public function __construct(
        private readonly Router $router,
        private readonly MiddlewareResolver $middleware,
        private readonly ContainerInterface $container,
        private readonly array $fixed = [],
    ) {
    }

    public function handle(Request $request): Response
    {
        $result = $this->router->dispatch($request->getMethod(), $request->getPath());
        if ($result->route === null) {
            throw match ($result->status) {
                RouteResult::METHOD_NOT_ALLOWED => new MethodNotAllowed($result->allowedMethods),
                RouteResult::BAD_REQUEST => new BadRequest('Malformed path: invalid UTF-8 or NUL in a parameter'),
                default => new NotFound(),
            };
        }
        $chain = $this->chains[\spl_object_id($result->route)] ??= $this->chain($result->route);

        return $chain->handle($request->withAttribute(RouteResult::class, $result));
    }

    private function chain(Route $route): RequestHandler
    {
        return MiddlewareLink::chain(
            $this->middleware->resolveAll($route->getMiddleware()),
            new RouteHandler($route, $this->container, $this->fixed),
        );
    }
}
