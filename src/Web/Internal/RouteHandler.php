<?php

declare(strict_types=1);

namespace Petrel\Web\Internal;

use Closure;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Web\Container\Scope;
use Petrel\Web\Routing\HandlerError;
use Petrel\Web\Routing\Route;
use Petrel\Web\Routing\RouteResult;
use Psr\Container\ContainerInterface;

/**
 * The innermost handler of a route: calls the route's handler with the arguments its
 * ArgumentPlan resolves and turns the return value into a Response (ResponseConverter).
 * Reflection happens once, when the App first builds the route's chain; a class handler
 * ([Class::class, 'method'] or an invokable class name) is taken from the container on
 * every call, so the container decides whether it is shared or per request. The request
 * the handler gets (after middleware) replaces the one in the request scope, so services
 * built from here on see it.
 *
 * @internal
 */
final class RouteHandler implements RequestHandler
{
    private readonly ?Closure $closure;

    private readonly ?object $object;

    /** the container id of a class handler; '' for the others */
    private readonly string $service;

    private readonly string $method;

    private readonly string $description;

    private readonly ArgumentPlan $plan;

    /** @param array<class-string, object> $fixed objects injected by exact type */
    public function __construct(Route $route, private readonly ContainerInterface $container, array $fixed = [])
    {
        $handler = $route->getHandler();
        $closure = $object = null;
        $service = '';
        $method = '__invoke';
        if ($handler instanceof Closure) {
            $closure = $handler;
            $function = new \ReflectionFunction($handler);
            $this->description = $function->getClosureScopeClass() !== null && !\str_contains($function->getName(), '{closure}')
                ? $function->getClosureScopeClass()->getName() . '::' . $function->getName() . '()'
                : \sprintf('the closure at %s:%d', $function->getFileName(), $function->getStartLine());
        } else {
            [$target, $method] = \is_array($handler) ? $handler : [$handler, '__invoke'];
            \assert((\is_object($target) || \is_string($target)) && \is_string($method));
            $function = new \ReflectionMethod($target, $method);
            $this->description = $function->getDeclaringClass()->getName() . '::' . $method . '()';
            if (\is_object($target)) {
                $object = $target;
            } elseif ($function->isStatic()) {
                $closure = $function->getClosure();
            } else {
                $service = $target;
            }
        }
        if ($function instanceof \ReflectionMethod && !$function->isPublic()) {
            throw new HandlerError("Route handler {$this->description} is not public");
        }
        if ($service !== '' && !$container->has($service)) {
            throw new HandlerError("Route handler {$this->description}: the container cannot provide {$service}");
        }
        [$this->closure, $this->object, $this->service, $this->method] = [$closure, $object, $service, $method];
        $this->plan = new ArgumentPlan($function, $this->description, $route, $container, $fixed);
    }

    public function handle(Request $request): Response
    {
        Scope::current()?->set(Request::class, $request);
        // A handler without parameters needs neither the plan nor the RouteResult: two calls less.
        $arguments = $this->plan->empty ? [] : $this->arguments($request);
        if ($this->closure !== null) {
            $value = ($this->closure)(...$arguments);
        } else {
            $target = $this->object ?? $this->container->get($this->service);
            if (!\is_object($target)) {
                throw $this->notAnObject($target);
            }
            $value = $target->{$this->method}(...$arguments);
        }

        // A Response, what most handlers return, needs no converting: a call less.
        return $value instanceof Response ? $value : ResponseConverter::convert($value, $this->description);
    }

    /** @return list<mixed> */
    private function arguments(Request $request): array
    {
        $result = $request->getAttribute(RouteResult::class);
        $result = $result instanceof RouteResult ? $result : null;

        return $this->plan->arguments($request, $result, $result === null ? [] : $result->params);
    }

    private function notAnObject(mixed $instance): HandlerError
    {
        $type = \get_debug_type($instance);

        return new HandlerError("The container returned {$type} for {$this->service}, the class of route handler {$this->description}");
    }
}
