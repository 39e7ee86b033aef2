<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Container\Fixtures;

final class RequestState
{
    private static int $next = 0;

    public readonly int $id;

    public function __construct()
    {
        $this->id = ++self::$next;
    }
}
