<?php

declare(strict_types=1);

namespace Petrel\Tests\Support;

use Psr\Container\ContainerInterface;

/**
 * A minimal foreign PSR-11 container for tests of what the App does with a container that
 * is not Petrel's: it knows only classes it can build without arguments, builds each once
 * and keeps it (every service a singleton; nothing request-scoped).
 */
final class MinimalContainer implements ContainerInterface
{
    /** @var array<string, object> */
    private array $instances = [];

    public function get(string $id): object
    {
        if (isset($this->instances[$id])) {
            return $this->instances[$id];
        }
        if (!$this->has($id)) {
            throw new MinimalContainerNotFound(
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
