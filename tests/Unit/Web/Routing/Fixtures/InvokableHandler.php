<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Routing\Fixtures;

final class InvokableHandler
{
    public function __invoke(string $name): string
    {
        return "invoked {$name}";
    }
}
