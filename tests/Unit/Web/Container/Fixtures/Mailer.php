<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Container\Fixtures;

final class Mailer
{
    public function __construct(public readonly RequestState $state)
    {
    }
}
