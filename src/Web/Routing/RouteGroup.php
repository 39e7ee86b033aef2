<?php

declare(strict_types=1);

namespace Petrel\Web\Routing;

use Closure;
use Petrel\Web\Middleware;
use Petrel\Web\Routing\Internal\RouteTable;
use Psr\Http\Server\MiddlewareInterface;

/**
 * Registers routes under a path prefix with shared middleware; the App itself registers
 * through a root group. Inside a group, the pattern "" is the prefix itself and "/" the
 * prefix with a trailing slash ("/admin" + "/" = "/admin/"; paths are matched strictly).
 * Group middleware runs after the global middleware, outer group first, before the
 * route's own; middleware() may be called at any point of boot and applies to every
 * route of the group.
 */
final class RouteGroup
{
    private const ANY = ['*'];

    /** @var list<Middleware|MiddlewareInterface|Closure|string> */
    private array $middleware;

    /**
     * @internal use App::group()
     * @param list<Middleware|MiddlewareInterface|Closure|string> $middleware
     */
    public function __construct(
        private readonly RouteTable $table,
        private readonly string $prefix = '',
        private readonly ?RouteGroup $parent = null,
        array $middleware = [],
    ) {
        $this->middleware = $middleware;
    }

    public function get(string $pattern, mixed $handler): Route
    {
        return $this->map(['GET'], $pattern, $handler);
    }

    public function post(string $pattern, mixed $handler): Route
    {
        return $this->map(['POST'], $pattern, $handler);
    }

    public function put(string $pattern, mixed $handler): Route
    {
        return $this->map(['PUT'], $pattern, $handler);
    }

    public function patch(string $pattern, mixed $handler): Route
    {
        return $this->map(['PATCH'], $pattern, $handler);
    }

    public function delete(string $pattern, mixed $handler): Route
    {
        return $this->map(['DELETE'], $pattern, $handler);
    }

    public function options(string $pattern, mixed $handler): Route
    {
        return $this->map(['OPTIONS'], $pattern, $handler);
    }

    /** A route for every method; routes for a specific method on the same path win. */
    public function any(string $pattern, mixed $handler): Route
    {
        return $this->map(self::ANY, $pattern, $handler);
    }

    /**
     * A route for the given methods (upper-cased; "*" means any). HEAD requests are served
     * by GET routes unless a HEAD route matches.
     *
     * @param string|list<string> $methods
     */
    public function map(string|array $methods, string $pattern, mixed $handler): Route
    {
        $this->table->assertOpen("add route {$this->prefix}{$pattern}");
        if ($pattern !== '' && $pattern[0] !== '/') {
            throw new RouteError("Route pattern \"{$pattern}\" must start with \"/\"");
        }
        $route = new Route($this->table, self::methods($methods), $this->prefix . $pattern, self::checkHandler($handler), $this);
        $this->table->add($route);

        return $route;
    }

    /**
     * Registers the routes that $define adds to a nested group.
     *
     * @param Closure(RouteGroup): mixed $define
     * @param list<Middleware|MiddlewareInterface|Closure|string> $middleware
     */
    public function group(string $prefix, Closure $define, array $middleware = []): self
    {
        $this->table->assertOpen("add group {$this->prefix}{$prefix}");
        if ($prefix !== '' && (!\str_starts_with($prefix, '/') || \str_ends_with($prefix, '/'))) {
            throw new RouteError("Group prefix \"{$prefix}\" must start with \"/\" and not end with one");
        }
        $group = new self($this->table, $this->prefix . $prefix, $this, \array_values($middleware));
        $define($group);

        return $group;
    }

    /** Adds middleware to every route of this group (and of its nested groups). */
    public function middleware(Middleware|MiddlewareInterface|Closure|string ...$middleware): self
    {
        $this->table->assertOpen("add middleware to group {$this->prefix}");
        \array_push($this->middleware, ...$middleware);

        return $this;
    }

    /**
     * This group's middleware, outermost first (parent groups' first).
     *
     * @return list<Middleware|MiddlewareInterface|Closure|string>
     */
    public function getMiddleware(): array
    {
        return $this->parent === null ? $this->middleware : [...$this->parent->getMiddleware(), ...$this->middleware];
    }

    /**
     * @param string|list<string> $methods
     * @return non-empty-list<string>
     */
    private static function methods(string|array $methods): array
    {
        $normalized = [];
        foreach ((array) $methods as $method) {
            $method = \strtoupper($method);
            if ($method !== '*' && \preg_match('/^[A-Z0-9!#$%&\'*+.^_`|~-]+$/', $method) !== 1) {
                throw new RouteError("Invalid HTTP method \"{$method}\"");
            }
            $normalized[$method] = $method;
        }
        if ($normalized === []) {
            throw new RouteError('A route needs at least one method');
        }

        return isset($normalized['*']) ? self::ANY : \array_values($normalized);
    }

    private static function checkHandler(mixed $handler): mixed
    {
        $valid = match (true) {
            $handler instanceof Closure => true,
            \is_object($handler) => \is_callable($handler),
            \is_string($handler) => \class_exists($handler) && \method_exists($handler, '__invoke'),
            \is_array($handler) => \count($handler) === 2 && \array_is_list($handler)
                && (\is_object($handler[0]) || (\is_string($handler[0]) && \class_exists($handler[0])))
                && \is_string($handler[1]) && \method_exists($handler[0], $handler[1]),
            default => false,
        };
        if (!$valid) {
            throw new HandlerError(\sprintf(
                'Invalid route handler %s: use a Closure, an invokable object or class name, or [Class::class, "method"]',
                \is_string($handler) ? "\"{$handler}\"" : \get_debug_type($handler),
            ));
        }

        return $handler;
    }
}
