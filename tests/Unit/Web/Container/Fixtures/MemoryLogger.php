<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Container\Fixtures;

final class MemoryLogger implements Logger
{
    /** @var list<string> */
    public array $lines = [];

    public function log(string $line): void
    {
        $this->lines[] = $line;
    }

    public function __invoke(string $line): void
    {
        $this->log($line);
    }
}
