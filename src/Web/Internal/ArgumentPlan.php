<?php

declare(strict_types=1);

namespace Petrel\Web\Internal;

use Petrel\Http\Request;
use Petrel\Web\Error\NotFound;
use Petrel\Web\Routing\HandlerError;
use Petrel\Web\Routing\Route;
use Petrel\Web\Routing\RouteResult;
use Psr\Container\ContainerExceptionInterface;
use Psr\Container\ContainerInterface;
use ReflectionFunctionAbstract;
use ReflectionNamedType;
use ReflectionParameter;
use ReflectionUnionType;

/**
 * How to fill a handler's parameters, worked out once per route by reflection; per request
 * only the plan runs. For each parameter, in this order:
 *
 * 1. typed Request or RouteResult → the current one; typed as a class in $fixed (the App,
 *    the container) → that object;
 * 2. named like a route placeholder, with no type, a scalar type or mixed → the decoded
 *    value, cast to int/float/bool when declared so; a value that does not cast (e.g.
 *    "abc" for int $id) is a 404, like a path no route matches; a placeholder left out by
 *    an optional segment → the default (or null);
 * 3. typed as a class or interface the container has → container->get(type), per call
 *    (if that fails: the default or null when there is one, else a HandlerError);
 * 4. a default value → it; a nullable type (?T, T|null, mixed) → null;
 * 5. anything else → HandlerError naming the handler and the parameter.
 *
 * Casts: int accepts /-?\d+/ within PHP_INT range (leading zeros allowed), float decimal
 * or exponent notation (finite), bool "1"/"true"/"0"/"false" (any case); a union of these
 * (int|float) takes the first that fits, in that order.
 *
 * @internal
 */
final class ArgumentPlan
{
    private const REQUEST = 0;
    private const ROUTE_RESULT = 1;
    private const PARAM = 2;
    private const SERVICE = 3;
    private const VALUE = 4;

    /** @var list<array{int, string, string, mixed, string}> kind, key, cast, value, parameter name */
    private readonly array $steps;

    /** The handler takes no parameters: RouteHandler skips arguments(), a call per request. */
    public readonly bool $empty;

    /** "of Handler::method() (route GET /path)", for messages */
    private readonly string $where;

    /** @param array<class-string, object> $fixed objects injected by exact type */
    public function __construct(
        ReflectionFunctionAbstract $function,
        private readonly string $handler,
        Route $route,
        private readonly ContainerInterface $container,
        array $fixed = [],
    ) {
        $this->where = \sprintf('of %s (route %s %s)', $handler, \implode('|', $route->getMethods()), $route->getPattern());
        [$all, $optional] = $route->parameterNames();
        $steps = [];
        foreach ($function->getParameters() as $parameter) {
            $steps[] = $this->plan($parameter, $all, $optional, $fixed);
        }
        $this->steps = $steps;
        $this->empty = $steps === [];
    }

    /**
     * @param array<string, string> $params
     * @return list<mixed>
     */
    public function arguments(Request $request, ?RouteResult $result, array $params): array
    {
        $arguments = [];
        foreach ($this->steps as [$kind, $key, $cast, $value, $name]) {
            $arguments[] = match ($kind) {
                self::PARAM => !isset($params[$key]) ? $value : ($cast === 'string' ? $params[$key] : self::cast($params[$key], $cast)),
                self::REQUEST => $request,
                self::SERVICE => $this->service($key, $name, $cast === 'optional', $value),
                self::ROUTE_RESULT => $result,
                default => $value,
            };
        }

        return $arguments;
    }

    /**
     * @param list<string> $all
     * @param list<string> $optional
     * @param array<class-string, object> $fixed
     * @return array{int, string, string, mixed, string}
     */
    private function plan(ReflectionParameter $parameter, array $all, array $optional, array $fixed): array
    {
        $name = $parameter->getName();
        if ($parameter->isVariadic()) {
            throw $this->error($parameter, 'variadic parameters cannot be injected');
        }
        $type = $parameter->getType();
        $class = $type instanceof ReflectionNamedType && !$type->isBuiltin() ? $type->getName() : null;
        if ($class === Request::class) {
            return [self::REQUEST, '', '', null, $name];
        }
        if ($class === RouteResult::class) {
            return [self::ROUTE_RESULT, '', '', null, $name];
        }
        if ($class !== null && isset($fixed[$class])) {
            return [self::VALUE, '', '', $fixed[$class], $name];
        }
        $fallback = match (true) {
            $parameter->isDefaultValueAvailable() => [$parameter->getDefaultValue()],
            $type?->allowsNull() === true => [null],
            default => [],
        };
        $cast = self::scalarCast($type);
        if ($cast !== null && \in_array($name, $all, true)) {
            if ($fallback === [] && \in_array($name, $optional, true)) {
                $why = "the placeholder \"{$name}\" is in an optional segment; give the parameter a default or make it nullable";
                throw $this->error($parameter, $why);
            }

            return [self::PARAM, $name, $cast, $fallback[0] ?? null, $name];
        }
        if ($class !== null && $this->container->has($class)) {
            return [self::SERVICE, $class, $fallback === [] ? '' : 'optional', $fallback[0] ?? null, $name];
        }
        if ($fallback !== []) {
            return [self::VALUE, '', '', $fallback[0], $name];
        }
        $why = match (true) {
            $class !== null => "the container has no service \"{$class}\"",
            \in_array($name, $all, true) => "the placeholder \"{$name}\" cannot be passed as " . $type,
            default => \sprintf(
                'there is no placeholder "%s" in the pattern (%s) and no type to inject by',
                $name,
                $all === [] ? 'it has none' : 'it has "' . \implode('", "', $all) . '"',
            ),
        };

        throw $this->error($parameter, $why);
    }

    /** 'string' for no type, mixed, string or a union with string; int/float/bool; null for others. */
    private static function scalarCast(?\ReflectionType $type): ?string
    {
        $names = match (true) {
            $type === null => ['mixed'],
            $type instanceof ReflectionNamedType => [$type->getName()],
            $type instanceof ReflectionUnionType => \array_map(
                static fn ($t): string => $t instanceof ReflectionNamedType ? $t->getName() : '',
                $type->getTypes(),
            ),
            default => [],
        };
        if (\in_array('string', $names, true) || \in_array('mixed', $names, true)) {
            return 'string';
        }
        // A union of scalars (int|float) takes the first cast the value passes, in this order.
        $casts = \array_values(\array_intersect(['int', 'float', 'bool'], $names));

        return $casts === [] ? null : \implode('|', $casts);
    }

    private static function cast(string $value, string $type): int|float|bool
    {
        if (\str_contains($type, '|')) {
            foreach (\explode('|', $type) as $one) {
                try {
                    return self::cast($value, $one);
                } catch (NotFound) {
                }
            }

            throw new NotFound();
        }
        switch ($type) {
            case 'int':
                if (\preg_match('/\A(-?)0*(\d{1,19})\z/', $value, $m) === 1) {
                    $digits = $m[2] === '0' ? '0' : $m[1] . $m[2];
                    if ((string) (int) $digits === $digits) {
                        return (int) $digits;
                    }
                }
                break;
            case 'float':
                if (\preg_match('/\A-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?\z/', $value) === 1 && \is_finite((float) $value)) {
                    return (float) $value;
                }
                break;
            default:
                $bool = ['1' => true, 'true' => true, '0' => false, 'false' => false][\strtolower($value)] ?? null;
                if ($bool !== null) {
                    return $bool;
                }
        }

        throw new NotFound();
    }

    /**
     * A service from the container; for an optional parameter (default or nullable), the
     * fallback when the container cannot resolve it.
     */
    private function service(string $class, string $parameter, bool $optional, mixed $fallback): mixed
    {
        try {
            return $this->container->get($class);
        } catch (ContainerExceptionInterface $e) {
            if ($optional) {
                return $fallback;
            }
            throw new HandlerError("Cannot inject parameter \${$parameter} {$this->where}: {$e->getMessage()}", 0, $e);
        }
    }

    private function error(ReflectionParameter $parameter, string $why): HandlerError
    {
        return new HandlerError("Cannot inject parameter \${$parameter->getName()} {$this->where}: {$why}");
    }
}
