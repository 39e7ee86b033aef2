<?php

declare(strict_types=1);

namespace Petrel\Web;

use Closure;
use Petrel\Coroutine\Context;
use Petrel\Http\HttpException;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Http\UpgradeContext;
use Petrel\Socket\Socket;
use Petrel\Web\Container\Container;
use Petrel\Web\Container\Scope;
use Petrel\Web\Error\ErrorRenderer;
use Petrel\Web\Error\HttpError;
use Petrel\Web\Internal\ErrorBoundary;
use Petrel\Web\Internal\MiddlewareResolver;
use Petrel\Web\Internal\RoutingHandler;
use Petrel\Web\Routing\Internal\RouteTable;
use Petrel\Web\Routing\Internal\WebSocketAction;
use Petrel\Web\Routing\Route;
use Petrel\Web\Routing\RouteError;
use Petrel\Web\Routing\RouteGroup;
use Petrel\Web\Routing\Router;
use Petrel\Web\Routing\UrlGenerator;
use Petrel\WebSocket\WebSocketOptions;
use Psr\Container\ContainerInterface;
use Psr\Http\Server\MiddlewareInterface;
use Throwable;

/**
 * A web application: routes, middleware and a container, as one request handler. Built
 * once per worker at boot; the routes compile on the first request (or compile()), after
 * which registering more is an error. Then it serves many requests concurrently: nothing
 * per request is kept in its properties.
 *
 * A request goes: global middleware → routing → group middleware (outer group first) →
 * route middleware → handler, and the response back out the same way. Around it all,
 * handle() opens the request scope (Petrel\Web\Container\Scope in Context, holding the
 * Request) and closes it when the response is returned. Exceptions become error responses
 * (ErrorRenderer, HTML or JSON by Accept): an HttpError keeps its status, a
 * Petrel\Http\HttpException (a malformed form body, say) too, routing gives 404/405 (with
 * Allow)/400, anything else is a 500 with details only when $debug, reported to the error
 * logger (Petrel\Observability\Log by default: STDERR, or the PSR-3 logger it was given).
 *
 * Global middleware wraps routing and errors: what the rest of the pipeline throws (a 404,
 * a 405, a handler's exception, an inner global middleware's) is rendered before it reaches
 * a global middleware, whose $next therefore always returns a response and whose "after"
 * part runs on error responses too — headers it adds (a request id, CORS, security
 * headers) are on every response. The exception stays available to it as
 * Error\RenderedError::of($response) (report it, or answer a page of its own). Group and
 * route middleware see exceptions as exceptions.
 *
 * The scope closes when handle() returns: the generator of a streamed response runs later
 * and must not use request-scoped services. An upgrade (a 101 made by Response::upgrade(),
 * a WebSocket route) is the exception: its scope stays open, and is the current one in the
 * upgraded connection's coroutine, until the upgrade handler returns, so a WebSocket
 * handler may use request-scoped services (a session, the user) for the connection's whole
 * life. HEAD requests run the GET handler; the server drops the body.
 *
 * See Routing\Router for the matching rules, Internal\ArgumentPlan for what handlers get
 * injected, Internal\ResponseConverter for what they may return.
 */
final class App implements RequestHandler
{
    private readonly ContainerInterface $container;

    private readonly RouteTable $table;

    private readonly RouteGroup $routes;

    private readonly MiddlewareResolver $resolver;

    private readonly ErrorRenderer $errors;

    /** @var list<Middleware|MiddlewareInterface|Closure|string> */
    private array $middleware = [];

    /**
     * What the outermost global middleware gets as $next: the other global middleware, each
     * inside an ErrorBoundary, then routing (or only routing); null until compile()
     */
    private ?RequestHandler $pipeline = null;

    /** The first global middleware added; handle() runs it around $pipeline */
    private ?Middleware $outermost = null;

    private ?UrlGenerator $urls = null;

    /** @var Closure(Throwable, Request): void */
    private Closure $errorLogger;

    /**
     * @param ContainerInterface|null $container where handler classes, services and middleware
     *        class names come from; by default a new Petrel\Web\Container\Container
     * @param bool $debug show exception details in 500 responses; never in production
     */
    public function __construct(?ContainerInterface $container = null, private readonly bool $debug = false)
    {
        $this->container = $container ?? new Container();
        $this->table = new RouteTable();
        $this->routes = new RouteGroup($this->table);
        $this->resolver = new MiddlewareResolver($this->container);
        $this->errors = new ErrorRenderer();
        $this->errorLogger = \Petrel\Observability\Log::requestFailed(...);
    }

    public function get(string $pattern, mixed $handler): Route
    {
        return $this->routes->get($pattern, $handler);
    }

    public function post(string $pattern, mixed $handler): Route
    {
        return $this->routes->post($pattern, $handler);
    }

    public function put(string $pattern, mixed $handler): Route
    {
        return $this->routes->put($pattern, $handler);
    }

    public function patch(string $pattern, mixed $handler): Route
    {
        return $this->routes->patch($pattern, $handler);
    }

    public function delete(string $pattern, mixed $handler): Route
    {
        return $this->routes->delete($pattern, $handler);
    }

    public function options(string $pattern, mixed $handler): Route
    {
        return $this->routes->options($pattern, $handler);
    }

    /** A route for every method; routes for a specific method on the same path win. */
    public function any(string $pattern, mixed $handler): Route
    {
        return $this->routes->any($pattern, $handler);
    }

    /**
     * A WebSocket endpoint: a GET route whose action answers the opening handshake
     * (WebSocketServer::upgrade(); 400/426 for a request that is not one, 403 for a browser
     * page of another site unless $options allow its origin) and then runs $handler on the
     * connection, after global, group and route middleware ran as for any route
     * (authentication, sessions: a middleware that answers 401 prevents the upgrade; one
     * that adds a header to the 101 is heard). $handler's parameters are injected like a
     * route handler's (Request, route placeholders, services…, see Internal\ArgumentPlan)
     * plus the WebSocket for each parameter typed WebSocket; they are resolved before the
     * upgrade. The request scope lasts until $handler returns. An exception from $handler
     * closes the connection with 1011 and goes to the HTTP server's error log (not this
     * App's: the response was sent long before).
     *
     *     $app->websocket('/rooms/{room}', function (WebSocket $ws, string $room, Session $session): void { ... });
     */
    public function websocket(string $pattern, Closure $handler, ?WebSocketOptions $options = null): Route
    {
        $fixed = [self::class => $this, ContainerInterface::class => $this->container];

        return $this->routes->get($pattern, new WebSocketAction($handler, $options, $this->container, $fixed));
    }

    /** @param string|list<string> $methods "*" for any */
    public function map(string|array $methods, string $pattern, mixed $handler): Route
    {
        return $this->routes->map($methods, $pattern, $handler);
    }

    /**
     * Routes under a prefix sharing middleware: group('/admin', fn (RouteGroup $g) => ..., [Auth::class]).
     *
     * @param Closure(RouteGroup): mixed $define
     * @param list<Middleware|MiddlewareInterface|Closure|string> $middleware
     */
    public function group(string $prefix, Closure $define, array $middleware = []): RouteGroup
    {
        return $this->routes->group($prefix, $define, $middleware);
    }

    /**
     * Global middleware, run for every request (404s, 405s and other errors included) around
     * routing, in the order added (the first added is the outermost). Its $next returns the
     * error response rather than throwing (see the class docblock and Error\RenderedError).
     * Instances, PSR-15 instances, Closure(Request, RequestHandler): Response, or container
     * ids resolved once — shared by all requests, so stateless.
     */
    public function middleware(Middleware|MiddlewareInterface|Closure|string ...$middleware): self
    {
        $this->table->assertOpen('add global middleware');
        \array_push($this->middleware, ...$middleware);

        return $this;
    }

    /** Where unexpected exceptions (the 500s) are reported, with the request; Observability\Log by default. */
    public function setErrorLogger(Closure $logger): void
    {
        $this->errorLogger = $logger;
    }

    /**
     * The path of a named route, with $query appended (see Routing\UrlGenerator).
     *
     * @param array<string, string|int|float|\Stringable> $params
     * @param array<mixed> $query
     * @throws RouteError for an unknown name or unusable parameters
     */
    public function url(string $name, array $params = [], array $query = []): string
    {
        $urls = $this->urls ?? new UrlGenerator($this->table->all());

        return $urls->generate($name, $params, $query);
    }

    public function container(): ContainerInterface
    {
        return $this->container;
    }

    /**
     * Compiles the routes and resolves the global middleware; handle() does it on the first
     * request. Afterwards routes and middleware can no longer be added.
     *
     * @throws RouteError for conflicting routes or names
     */
    public function compile(): void
    {
        if ($this->pipeline !== null) {
            return;
        }
        $routes = $this->table->all();
        $router = new Router($routes);
        $urls = new UrlGenerator($routes);
        $fixed = [self::class => $this, ContainerInterface::class => $this->container];
        $routing = new RoutingHandler($router, $this->resolver, $this->container, $this->renderError(...), $fixed);
        $global = $this->resolver->resolveAll($this->middleware);
        $pipeline = ErrorBoundary::chain(\array_slice($global, 1), $routing, $this->renderError(...));
        $this->table->freeze();
        [$this->urls, $this->outermost, $this->pipeline] = [$urls, $global[0] ?? null, $pipeline];
    }

    public function handle(Request $request): Response
    {
        if ($this->pipeline === null) {
            $this->compile();
        }
        \assert($this->pipeline !== null);
        $scope = new Scope();
        $scope->set(Request::class, $request);
        $outer = Context::replace(Scope::CONTEXT_KEY, $scope);
        $upgrade = null;
        try {
            // The outermost global middleware runs from here, not through a MiddlewareLink:
            // a call less per request. What it throws is rendered below.
            $response = $this->outermost === null ? $this->pipeline->handle($request) : $this->outermost->process($request, $this->pipeline);
            if ($response->getStatus() === 101 && $response->getUpgradeHandler() !== null) {
                $upgrade = $this->keepScopeOpen($response, $scope, $request);
            }

            return $upgrade ?? $response;
        } catch (Throwable $error) {
            return $this->renderError($error, $request);
        } finally {
            if ($upgrade === null) {
                $this->closeScope($scope, $outer, $request);
            } else {
                $outer === null ? Context::delete(Scope::CONTEXT_KEY) : Context::set(Scope::CONTEXT_KEY, $outer);
            }
        }
    }

    /**
     * The same 101 whose upgrade handler runs in $scope and closes it when it returns:
     * the handler runs later, in the connection's coroutine, after handle() returned.
     */
    private function keepScopeOpen(Response $response, Scope $scope, Request $request): Response
    {
        $inner = $response->getUpgradeHandler();
        \assert($inner !== null);
        $onUpgrade = function (Socket $socket, string $buffered, UpgradeContext $context) use ($inner, $scope, $request): void {
            $outer = Context::replace(Scope::CONTEXT_KEY, $scope);
            try {
                $inner($socket, $buffered, $context);
            } finally {
                $this->closeScope($scope, $outer, $request);
            }
        };
        $upgrade = Response::upgrade($response->getHeaders(), $onUpgrade);
        foreach ($response->getCookies() as $cookie) {
            $upgrade = $upgrade->withCookie($cookie);
        }

        return $upgrade;
    }

    /** Closes the request scope; a failing cleanup hook is logged, not turned into a 500. */
    private function closeScope(Scope $scope, mixed $outer, Request $request): void
    {
        try {
            $scope->close();
        } catch (Throwable $error) {
            ($this->errorLogger)($error, $request);
        } finally {
            $outer === null ? Context::delete(Scope::CONTEXT_KEY) : Context::set(Scope::CONTEXT_KEY, $outer);
        }
    }

    private function renderError(Throwable $error, Request $request): Response
    {
        if ($error instanceof HttpException) {
            $error = new HttpError($error->getStatus(), $error->getReason(), [], $error);
        } elseif (!$error instanceof HttpError) {
            ($this->errorLogger)($error, $request);
        }

        return $this->errors->render($error, $request, $this->debug);
    }
}
