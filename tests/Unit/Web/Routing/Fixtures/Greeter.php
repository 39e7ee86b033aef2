<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing\Fixtures;

/** A service injected by type. */
final class Greeter
{
    public function greet(string $name): string
    {
        return "Hello, {$name}";
    }
}
