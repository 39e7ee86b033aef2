<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing\Fixtures;

use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Web\Routing\RouteResult;

/** A controller taken from the container: counts instances to show who decides its lifetime. */
final class UserController
{
    public static int $instances = 0;

    public function __construct(private readonly Greeter $greeter)
    {
        ++self::$instances;
    }

    /** @return array<string, mixed> */
    public function show(int $id, Request $request, ?string $missing = null): array
    {
        return ['id' => $id, 'path' => $request->getPath(), 'missing' => $missing];
    }

    public function greet(string $name): string
    {
        return $this->greeter->greet($name);
    }

    /** @param mixed $untyped deliberately without a declared type */
    public function scalars(int $i, float $f, bool $b, string $s, $untyped, int|string $union): Response
    {
        return Response::json([$i, $f, $b, $s, $untyped, $union], flags: \JSON_PRESERVE_ZERO_FRACTION);
    }

    public function page(RouteResult $route, int $page = 1): string
    {
        return "page {$page} of " . $route->route?->getPattern();
    }

    public static function staticHandler(string $name): string
    {
        return "static {$name}";
    }

    public function unresolvable(int $nope): string
    {
        return 'never';
    }

    public function optionalWithoutDefault(int $page): string
    {
        return 'never';
    }

    public function needsConfig(NeedsConfig $config): string
    {
        return $config->dsn;
    }

    public function optionalService(?NeedsConfig $config = null): string
    {
        return $config === null ? 'no config' : 'config';
    }

    /** @phpstan-ignore method.unused */
    private function secret(): string
    {
        return 'secret';
    }
}
