<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing\Fixtures;

/** A service no container can build on its own (a scalar constructor argument). */
final class NeedsConfig
{
    public function __construct(public readonly string $dsn)
    {
    }
}
