<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Observability;

/** A singleton that remembers every request, for LeakCheckTest. */
final class LeakCheckService
{
    /** @var list<int> */
    public array $seen = [];
}
