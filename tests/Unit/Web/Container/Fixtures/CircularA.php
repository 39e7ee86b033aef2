<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Container\Fixtures;

final class CircularA
{
    public function __construct(public readonly CircularB $b)
    {
    }
}
