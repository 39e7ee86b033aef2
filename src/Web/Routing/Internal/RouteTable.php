<?php

declare(strict_types=1);

namespace Petrel\Web\Routing\Internal;

use Petrel\Web\Routing\Route;
use Petrel\Web\Routing\RouteError;

/**
 * The routes registered at boot, shared by the App and its groups, frozen when the App
 * compiles them: from then on every registration is an error.
 *
 * @internal
 */
final class RouteTable
{
    /** @var list<Route> */
    private array $routes = [];

    private bool $frozen = false;

    public function add(Route $route): void
    {
        $this->assertOpen('add route ' . $route->getPattern());
        $this->routes[] = $route;
    }

    /** @return list<Route> */
    public function all(): array
    {
        return $this->routes;
    }

    public function freeze(): void
    {
        $this->frozen = true;
    }

    public function isFrozen(): bool
    {
        return $this->frozen;
    }

    /** @throws RouteError once frozen */
    public function assertOpen(string $what): void
    {
        if ($this->frozen) {
            throw new RouteError(
                "Cannot {$what}: the routes are already compiled (register routes and middleware at boot, before the first request)",
            );
        }
    }
}
