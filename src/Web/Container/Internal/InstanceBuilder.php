<?php

declare(strict_types=1);

namespace Petrel\Web\Container\Internal;

use Closure;
use Petrel\Coroutine\Context;
use Petrel\Web\Container\ContainerException;
use Petrel\Web\Container\NotFoundException;
use Psr\Container\ContainerInterface;
use Psr\Container\NotFoundExceptionInterface;

/**
 * Builds instances for the Container: calls factories, or autowires a class from its cached
 * constructor plan. The resolution chain travels in Context (per coroutine) while user code
 * runs, so that get() calls made by a factory extend the chain instead of starting anew.
 *
 * @internal
 */
final class InstanceBuilder
{
    /** Context key of the chain being resolved in the current coroutine. */
    private readonly string $chainKey;

    /**
     * @param Closure(string, Chain): mixed $resolve resolves a dependency
     * @param Closure(string): bool $isRegistered whether an id has an entry (or a scope value)
     */
    public function __construct(
        private readonly ContainerInterface $container,
        private readonly Autowirer $autowirer,
        private readonly Closure $resolve,
        private readonly Closure $isRegistered,
    ) {
        $this->chainKey = 'petrel.web.container.chain.' . \spl_object_id($container);
    }

    /** The chain being resolved by the current coroutine (empty outside factories). */
    public function chain(): Chain
    {
        $chain = Context::get($this->chainKey);

        return $chain instanceof Chain ? $chain : new Chain();
    }

    /** @param Chain $chain ends with $id */
    public function build(string $id, ?Closure $factory, Chain $chain): mixed
    {
        if ($factory !== null) {
            return $this->runUserCode(fn (): mixed => $factory($this->container), $chain);
        }
        $plan = $this->autowirer->plan($id);
        if (\is_string($plan)) {
            throw $chain->error($plan);
        }

        return $this->construct($id, $plan, [], $chain);
    }

    /**
     * @param list<Parameter> $plan
     * @param array<int|string, mixed> $explicit
     * @param Chain $chain ends with $class
     */
    public function construct(string $class, array $plan, array $explicit, Chain $chain): object
    {
        $arguments = $this->arguments($plan, $explicit, $chain, "{$class}::__construct()");

        return $this->runUserCode(static fn (): object => new $class(...$arguments), $chain);
    }

    /**
     * Arguments for $parameters: an explicit value (by name, position or type class); else,
     * for a class type, a registered entry, else the default, else an autowired instance;
     * else null when nullable. Omitted: parameters left to their default (PHP fills them).
     *
     * @param list<Parameter> $parameters
     * @param array<int|string, mixed> $explicit
     * @return array<string, mixed> by name
     */
    public function arguments(array $parameters, array $explicit, Chain $chain, string $function): array
    {
        $arguments = [];
        foreach ($parameters as $parameter) {
            $name = $parameter->name;
            $class = $parameter->class;
            if (\array_key_exists($name, $explicit) || \array_key_exists($parameter->position, $explicit)) {
                $arguments[$name] = \array_key_exists($name, $explicit) ? $explicit[$name] : $explicit[$parameter->position];
            } elseif ($class !== null && \array_key_exists($class, $explicit)) {
                $arguments[$name] = $explicit[$class];
            } elseif ($parameter->variadic) {
                break;
            } elseif ($class !== null && $this->shouldInject($class, $parameter)) {
                $arguments[$name] = ($this->resolve)($class, $chain);
            } elseif ($parameter->allowsNull && !$parameter->hasDefault) {
                $arguments[$name] = null;
            } elseif (!$parameter->hasDefault) {
                $plan = $class === null ? null : $this->autowirer->plan($class);
                $reason = \is_string($plan) ? $plan : "nothing to pass for {$parameter->type} \${$name}; "
                    . 'give it a default, or register the class with a factory';
                throw $chain->error("{$reason} (parameter \${$name} of {$function})");
            }
        }

        return $arguments;
    }

    /** A registered entry always; an autowirable class only when there is no default. */
    private function shouldInject(string $class, Parameter $parameter): bool
    {
        return ($this->isRegistered)($class) || (!$parameter->hasDefault && $this->autowirer->canAutowire($class));
    }

    /**
     * Runs a factory or constructor with the chain visible to the get() calls it makes. A
     * "not found" escaping it is about a dependency, so it becomes a ContainerException.
     *
     * @template T
     * @param Closure(): T $code
     * @return T
     */
    private function runUserCode(Closure $code, Chain $chain): mixed
    {
        $outer = Context::get($this->chainKey);
        Context::set($this->chainKey, $chain);
        try {
            return $code();
        } catch (NotFoundExceptionInterface $e) {
            throw new ContainerException($e instanceof NotFoundException ? $e->getMessage() : $chain->message($e->getMessage()), 0, $e);
        } finally {
            $outer === null ? Context::delete($this->chainKey) : Context::set($this->chainKey, $outer);
        }
    }
}
