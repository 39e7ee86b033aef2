<?php

declare(strict_types=1);

namespace Petrel\Web\Container\Internal;

/**
 * Reflection, done once: a class's constructor parameters (or the reason it cannot be
 * autowired) and a method's parameters are read on first use and kept as plain
 * Parameter lists for the life of the container — so a resident worker reflects each class
 * once, not once per request. Negative answers are cached too: a class that does not exist
 * on first lookup is not looked up again.
 *
 * @internal
 */
final class Autowirer
{
    /** @var array<string, list<Parameter>|string> id => constructor parameters, or why not */
    private array $plans = [];

    /** @var array<string, list<Parameter>> "Class::method" => parameters */
    private array $methods = [];

    /**
     * The constructor parameters of a concrete class, or a sentence saying why $id cannot
     * be autowired ("no binding for interface X").
     *
     * @return list<Parameter>|string
     */
    public function plan(string $id): array|string
    {
        return $this->plans[$id] ??= self::reflectClass($id);
    }

    public function canAutowire(string $id): bool
    {
        return \is_array($this->plans[$id] ??= self::reflectClass($id));
    }

    /** @return list<Parameter> */
    public function callableParameters(callable $callable): array
    {
        if (\is_string($callable) && \str_contains($callable, '::')) {
            $callable = \explode('::', $callable, 2);
        }
        if (\is_array($callable)) {
            [$target, $method] = $callable;
            $class = \is_object($target) ? $target::class : $target;

            return $this->methods[$class . '::' . $method] ??= self::parameters(new \ReflectionMethod($class, $method));
        }
        if (\is_object($callable) && !$callable instanceof \Closure) {
            return $this->methods[$callable::class . '::__invoke'] ??= self::parameters(new \ReflectionMethod($callable, '__invoke'));
        }

        // Closures and function names: each closure may differ, so they are not cached.
        return self::parameters(new \ReflectionFunction(\Closure::fromCallable($callable)));
    }

    /** @return list<Parameter>|string */
    private static function reflectClass(string $id): array|string
    {
        if (\interface_exists($id)) {
            return "no binding for interface {$id}";
        }
        if (!\class_exists($id)) {
            return \trait_exists($id) ? "{$id} is a trait" : "no entry or class named \"{$id}\"";
        }
        if (\enum_exists($id)) {
            return "{$id} is an enum; register the case to use with set()";
        }
        $class = new \ReflectionClass($id);
        if ($class->isAbstract()) {
            return "no binding for abstract class {$id}";
        }
        $constructor = $class->getConstructor();
        if ($constructor === null) {
            return [];
        }
        if (!$constructor->isPublic()) {
            return "{$id} has a non-public constructor; register it with a factory";
        }

        return self::parameters($constructor);
    }

    /** @return list<Parameter> */
    private static function parameters(\ReflectionFunctionAbstract $function): array
    {
        return \array_map(Parameter::fromReflection(...), $function->getParameters());
    }
}
