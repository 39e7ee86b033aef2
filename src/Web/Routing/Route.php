<?php

declare(strict_types=1);

namespace Petrel\Web\Routing;

use Closure;
use Petrel\Web\Middleware;
use Petrel\Web\Routing\Internal\RouteParser;
use Petrel\Web\Routing\Internal\RouteTable;
use Psr\Http\Server\MiddlewareInterface;

/**
 * One route: methods, pattern, handler, and optionally a name and its own middleware.
 * Created by App/RouteGroup::get() and friends; name() and middleware() configure it at
 * boot and fail once the App has compiled its routes.
 *
 * Handlers: a Closure, an invokable object, an invokable class name, or [Class::class,
 * 'method'] / [$object, 'method'] (classes are taken from the container on each call, so
 * their lifetime is the container's: one per worker, or one per request if scoped).
 *
 * Middleware: a Petrel Middleware, a PSR-15 MiddlewareInterface, a
 * Closure(Request, RequestHandler): Response, or a container id (usually a class name),
 * resolved once and then shared by every request — so middleware must keep no per-request
 * state in properties.
 */
final class Route
{
    private ?string $name = null;

    /** @var list<Middleware|MiddlewareInterface|Closure|string> */
    private array $middleware = [];

    /** @var non-empty-list<list<string|array{string, string}>> */
    private readonly array $variants;

    /**
     * @internal use App::get() and friends
     * @throws RouteError for a malformed pattern
     * @param non-empty-list<string> $methods upper case, or ["*"] for any method
     */
    public function __construct(
        private readonly RouteTable $table,
        private readonly array $methods,
        private readonly string $pattern,
        private readonly mixed $handler,
        private readonly ?RouteGroup $group = null,
    ) {
        $this->variants = RouteParser::parse($pattern);
    }

    /** Names the route for URL generation (App::url()); names are unique per App. */
    public function name(string $name): self
    {
        $this->table->assertOpen("name route {$this->pattern}");
        if ($name === '') {
            throw new RouteError("Route {$this->pattern}: the name must not be empty");
        }
        $this->name = $name;

        return $this;
    }

    /**
     * Adds middleware run for this route only, after the global and group middleware, in
     * the order given.
     */
    public function middleware(Middleware|MiddlewareInterface|Closure|string ...$middleware): self
    {
        $this->table->assertOpen("add middleware to route {$this->pattern}");
        \array_push($this->middleware, ...$middleware);

        return $this;
    }

    /** @return non-empty-list<string> upper case, or ["*"] for a route that takes any method */
    public function getMethods(): array
    {
        return $this->methods;
    }

    /** The full pattern, group prefixes included. */
    public function getPattern(): string
    {
        return $this->pattern;
    }

    public function getName(): ?string
    {
        return $this->name;
    }

    public function getHandler(): mixed
    {
        return $this->handler;
    }

    /**
     * The middleware this route runs after routing, outermost first: its groups' (outer
     * group first), then its own.
     *
     * @return list<Middleware|MiddlewareInterface|Closure|string>
     */
    public function getMiddleware(): array
    {
        return [...($this->group?->getMiddleware() ?? []), ...$this->middleware];
    }

    /**
     * The parsed pattern, shortest variant first (see RouteParser).
     *
     * @internal
     * @return non-empty-list<list<string|array{string, string}>>
     */
    public function variants(): array
    {
        return $this->variants;
    }

    /**
     * Names of all placeholders, and of those that optional segments may leave out.
     *
     * @internal
     * @return array{list<string>, list<string>}
     */
    public function parameterNames(): array
    {
        $variants = $this->variants();
        $all = RouteParser::names($variants[\count($variants) - 1]);

        return [$all, \array_values(\array_diff($all, RouteParser::names($variants[0])))];
    }
}
