<?php

declare(strict_types=1);

namespace Petrel\Web\Internal;

use Closure;
use Petrel\Web\Middleware;
use Petrel\Web\Routing\HandlerError;
use Psr\Container\ContainerExceptionInterface;
use Psr\Container\ContainerInterface;
use Psr\Container\NotFoundExceptionInterface;
use Psr\Http\Server\MiddlewareInterface;

/**
 * Turns the middleware given to the App into Petrel Middleware: instances as they are,
 * PSR-15 instances and closures through adapters, container ids (class names) through
 * the container — once per id, then the same instance for every route and request (so
 * middleware must be stateless across requests).
 *
 * @internal
 */
final class MiddlewareResolver
{
    /** @var array<string, Middleware> */
    private array $resolved = [];

    public function __construct(private readonly ContainerInterface $container)
    {
    }

    public function resolve(Middleware|MiddlewareInterface|Closure|string $middleware): Middleware
    {
        return match (true) {
            $middleware instanceof Middleware => $middleware,
            $middleware instanceof MiddlewareInterface => new PsrMiddlewareAdapter($middleware),
            $middleware instanceof Closure => new ClosureMiddleware($middleware),
            default => $this->resolved[$middleware] ??= $this->fromContainer($middleware),
        };
    }

    /**
     * @param list<Middleware|MiddlewareInterface|Closure|string> $middleware
     * @return list<Middleware>
     */
    public function resolveAll(array $middleware): array
    {
        return \array_map($this->resolve(...), $middleware);
    }

    private function fromContainer(string $id): Middleware
    {
        try {
            $instance = $this->container->get($id);
        } catch (NotFoundExceptionInterface $e) {
            throw new HandlerError("Middleware \"{$id}\" is not a service of the container: {$e->getMessage()}", 0, $e);
        } catch (ContainerExceptionInterface $e) {
            throw new HandlerError("Middleware \"{$id}\" cannot be built: {$e->getMessage()}", 0, $e);
        }
        if ($instance instanceof MiddlewareInterface && !$instance instanceof Middleware) {
            return new PsrMiddlewareAdapter($instance);
        }
        if (!$instance instanceof Middleware) {
            throw new HandlerError(\sprintf(
                'Middleware "%s" resolved to %s, which implements neither %s nor %s',
                $id,
                \get_debug_type($instance),
                Middleware::class,
                MiddlewareInterface::class,
            ));
        }

        return $instance;
    }
}
