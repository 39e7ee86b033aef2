<?php

declare(strict_types=1);

namespace Petrel\Web\Container;

use Closure;
use Petrel\Coroutine\Context;
use Petrel\Web\Container\Internal\Autowirer;
use Petrel\Web\Container\Internal\BuildGate;
use Petrel\Web\Container\Internal\Chain;
use Petrel\Web\Container\Internal\Definition;
use Petrel\Web\Container\Internal\Lifetime;
use Petrel\Web\Container\Internal\InstanceBuilder;
use Psr\Container\ContainerInterface;

/**
 * A small PSR-11 container for a resident worker, built once at boot and shared by every
 * request the worker serves.
 *
 * Lifetimes:
 * - set(): a ready instance (or any value).
 * - singleton(): one instance per container, i.e. per worker, built on first get().
 * - scoped(): one instance per request scope (see Scope), dropped when the request ends.
 * - factory(): a new instance on every get().
 * - alias(): another name for an entry (bind an interface to a class).
 *
 * Autowiring: get() of an unregistered concrete class builds it, resolving constructor
 * parameters by type from the container. Autowired classes are TRANSIENT — built anew on
 * every get() — because caching them worker-wide would silently share whatever they hold
 * between concurrent requests; register a class with singleton() to share it. Reflection
 * runs once per class and is kept as a plan (see Internal\Autowirer), so building is cheap.
 * A class-typed parameter gets: a registered entry (or a value in the current scope, such
 * as the Request the App puts there); else its default value; else an autowired instance;
 * else null if nullable. A builtin-typed parameter gets its default or null, or the
 * resolution fails.
 *
 * Failures name the resolution chain: "Cannot resolve App\UserController →
 * App\UserRepository → App\Database: no binding for interface Psr\Log\LoggerInterface
 * (parameter $logger of App\Database::__construct())". Circular dependencies and
 * captive ones (a singleton that needs a request-scoped service, which would keep the
 * first request's instance forever) are reported the same way. The chain is kept per
 * coroutine (in Context), so concurrent requests building services do not mix chains, and
 * a singleton whose factory suspends is built once: other coroutines wait for it. (Two
 * coroutines each building a singleton that needs the other's, with factories that suspend,
 * would wait for each other: only a cycle within one coroutine's chain is detected.)
 *
 * Exceptions thrown by factories and constructors propagate unchanged (an HttpError from a
 * scoped factory still yields its status), except a PSR-11 "not found" from a nested
 * get(), which becomes a ContainerException: the entry asked for exists, a dependency not.
 */
final class Container implements ContainerInterface
{
    /** @var array<string, mixed> set() values and built singletons */
    private array $instances = [];

    /** @var array<string, Definition> */
    private array $definitions = [];

    /** @var array<string, string> */
    private array $aliases = [];

    private readonly Autowirer $autowirer;

    private readonly BuildGate $gate;

    private readonly InstanceBuilder $builder;

    public function __construct()
    {
        $this->autowirer = new Autowirer();
        $this->gate = new BuildGate();
        $this->builder = new InstanceBuilder(
            $this,
            $this->autowirer,
            fn (string $id, Chain $chain): mixed => $this->resolve($id, $chain, false),
            $this->isRegistered(...),
        );
        $this->set(ContainerInterface::class, $this);
        $this->set(self::class, $this);
    }

    /** Registers a ready value under $id (replacing any earlier registration). */
    public function set(string $id, mixed $value): void
    {
        $this->forget($id);
        $this->instances[$id] = $value;
    }

    /**
     * One instance per worker, built on first get() by $factory($container), or autowired
     * when $factory is null (then $id must be a concrete class).
     *
     * @throws ContainerError when $factory is null and $id cannot be autowired
     */
    public function singleton(string $id, ?Closure $factory = null): void
    {
        $this->define('singleton', $id, new Definition(Lifetime::Singleton, $factory));
    }

    /**
     * One instance per request scope. $dispose($instance), when given, runs as the scope
     * closes (the request's end), last built first.
     *
     * @throws ContainerError when $factory is null and $id cannot be autowired
     */
    public function scoped(string $id, ?Closure $factory = null, ?Closure $dispose = null): void
    {
        $this->define('scoped', $id, new Definition(Lifetime::Scoped, $factory, $dispose));
    }

    /** A new value from $factory($container) on every get(). */
    public function factory(string $id, Closure $factory): void
    {
        $this->define('factory', $id, new Definition(Lifetime::Transient, $factory));
    }

    /** get($id) returns get($target); the target's lifetime applies. */
    public function alias(string $id, string $target): void
    {
        if ($id === $target) {
            throw new ContainerError("Cannot alias \"{$id}\" to itself");
        }
        $this->forget($id);
        $this->aliases[$id] = $target;
    }

    /**
     * @throws NotFoundException when $id has no entry and is not an autowirable class
     * @throws ContainerException when a dependency cannot be resolved
     */
    public function get(string $id): mixed
    {
        if (isset($this->instances[$id]) || \array_key_exists($id, $this->instances)) {
            return $this->instances[$id];
        }

        return $this->resolve($id, $this->builder->chain(), true);
    }

    public function has(string $id): bool
    {
        for ($seen = []; isset($this->aliases[$id]) && !isset($seen[$id]); $id = $this->aliases[$id]) {
            $seen[$id] = true;
        }

        return $this->isRegistered($id) || $this->autowirer->canAutowire($id);
    }

    /**
     * Builds a new $class (never cached, whatever is registered under $class), taking
     * constructor arguments from $params first — by parameter name, position, or class
     * name of the parameter's type — and the rest from the container. Unused $params are
     * ignored; values are passed as they are (strict types: no coercion).
     *
     * @template T of object
     * @param class-string<T> $class
     * @param array<int|string, mixed> $params
     * @return T
     */
    public function make(string $class, array $params = []): object
    {
        $plan = $this->autowirer->plan($class);
        if (\is_string($plan)) {
            throw new ContainerException("Cannot make {$class}: {$plan}");
        }
        $instance = $this->builder->construct($class, $plan, $params, $this->builder->chain()->with($class, Lifetime::Transient));
        \assert($instance instanceof $class);

        return $instance;
    }

    /**
     * Calls $callable with its parameters resolved like make()'s: $params first (by name,
     * position or type), then the container. Reflection of methods is cached; closures are
     * reflected on each call.
     *
     * @param array<int|string, mixed> $params
     */
    public function call(callable $callable, array $params = []): mixed
    {
        $parameters = $this->autowirer->callableParameters($callable);
        $arguments = $this->builder->arguments($parameters, $params, $this->builder->chain(), 'the called function');

        return $callable(...$arguments);
    }

    /**
     * Runs $fn($scope) inside a fresh request scope, closes the scope afterwards and restores
     * the previous one: for CLI commands, jobs and tests (the App opens its own per request).
     *
     * @template T
     * @param Closure(Scope): T $fn
     * @return T
     */
    public function runInScope(Closure $fn): mixed
    {
        $scope = new Scope();
        $outer = Context::replace(Scope::CONTEXT_KEY, $scope);
        try {
            return $fn($scope);
        } finally {
            try {
                $scope->close();
            } finally {
                $outer === null ? Context::delete(Scope::CONTEXT_KEY) : Context::set(Scope::CONTEXT_KEY, $outer);
            }
        }
    }

    private function resolve(string $id, Chain $chain, bool $requested): mixed
    {
        if (\array_key_exists($id, $this->instances)) {
            return $this->instances[$id];
        }
        if (isset($this->aliases[$id])) {
            return $this->resolve($this->aliases[$id], $chain->with($id, Lifetime::Transient), $requested);
        }
        $definition = $this->definitions[$id] ?? null;
        if ($definition !== null) {
            return match ($definition->lifetime) {
                Lifetime::Singleton => $this->resolveSingleton($id, $definition, $chain),
                Lifetime::Scoped => $this->resolveScoped($id, $definition, $chain),
                Lifetime::Transient => $this->builder->build($id, $definition->factory, $chain->with($id, Lifetime::Transient)),
            };
        }
        $scope = Scope::current();
        if ($scope !== null && $scope->has($id)) {
            $chain->assertMayUseScoped($id);

            return $scope->get($id);
        }
        $plan = $this->autowirer->plan($id);
        if (\is_string($plan)) {
            $message = $chain->message($plan, $id);
            throw $requested ? new NotFoundException($message) : new ContainerException($message);
        }

        return $this->builder->build($id, null, $chain->with($id, Lifetime::Transient));
    }

    private function resolveSingleton(string $id, Definition $definition, Chain $chain): mixed
    {
        $chain = $chain->with($id, Lifetime::Singleton); // before waiting: re-entrance is a cycle
        $this->gate->enter($id);
        try {
            // Another coroutine may have built it while this one waited.
            return \array_key_exists($id, $this->instances)
                ? $this->instances[$id]
                : $this->instances[$id] = $this->builder->build($id, $definition->factory, $chain);
        } finally {
            $this->gate->leave($id);
        }
    }

    private function resolveScoped(string $id, Definition $definition, Chain $chain): mixed
    {
        $chain->assertMayUseScoped($id);
        $scope = Scope::current();
        if ($scope === null || $scope->isClosed()) {
            throw $chain->error($scope === null
                ? "{$id} is request-scoped; resolve it while handling a request (or inside Container::runInScope())"
                : "{$id} is request-scoped and its request has ended (did a coroutine outlive its request?)", $id);
        }
        if ($scope->has($id)) {
            return $scope->get($id);
        }
        $chain = $chain->with($id, Lifetime::Scoped);
        $key = \spl_object_id($scope) . "\0" . $id;
        $this->gate->enter($key);
        try {
            if ($scope->has($id)) {
                return $scope->get($id);
            }
            $instance = $this->builder->build($id, $definition->factory, $chain);
            $scope->set($id, $instance);
            $dispose = $definition->dispose;
            if ($dispose !== null) {
                $scope->onClose(static fn () => $dispose($instance));
            }

            return $instance;
        } finally {
            $this->gate->leave($key);
        }
    }

    private function isRegistered(string $id): bool
    {
        return \array_key_exists($id, $this->instances)
            || isset($this->definitions[$id])
            || isset($this->aliases[$id])
            || (Scope::current()?->has($id) ?? false);
    }

    private function define(string $method, string $id, Definition $definition): void
    {
        if ($definition->factory === null && \is_string($reason = $this->autowirer->plan($id))) {
            throw new ContainerError("{$method}(\"{$id}\") needs a factory: {$reason}");
        }
        $this->forget($id);
        $this->definitions[$id] = $definition;
    }

    private function forget(string $id): void
    {
        unset($this->instances[$id], $this->definitions[$id], $this->aliases[$id]);
    }
}
