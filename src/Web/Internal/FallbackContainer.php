<?php

declare(strict_types=1);

namespace Petrel\Web\Internal;

use Psr\Container\ContainerInterface;

/**
 * The App's container when none is given and Petrel\Web\Container\Container is not
 * installed: it knows only classes it can build without arguments, builds each once and
 * keeps it for the life of the worker (every service is a singleton; nothing is
 * request-scoped).
 *
 * @internal
 */
final class FallbackContainer implements ContainerInterface
{
    /** @var array<string, object> */
    private array $instances = [];

    public function get(string $id): object
    {
        if (isset($this->instances[$id])) {
            return $this->instances[$id];
        }
        if (!$this->has($id)) {
            throw new ServiceNotFound(
                "No service \"{$id}\": the App has no container, and it can only build classes whose constructors take no arguments",
            );
        }
        /** @var class-string $id */
        return $this->instances[$id] = new $id();
    }

    public function has(string $id): bool
    {
        if (isset($this->instances[$id])) {
            return true;
        }
        if (!\class_exists($id)) {
            return false;
        }
        $class = new \ReflectionClass($id);

        return $class->isInstantiable() && ($class->getConstructor()?->getNumberOfRequiredParameters() ?? 0) === 0;
    }
}
