<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Container\Fixtures;

final class Database
{
    public function __construct(public readonly Logger $logger, public readonly string $dsn = 'sqlite::memory:')
    {
    }
}
