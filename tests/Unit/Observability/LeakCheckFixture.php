<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Observability;

/** A class with a static cache, for LeakCheckTest. */
final class LeakCheckFixture
{
    /** @var list<string> */
    public static array $cache = [];
}
