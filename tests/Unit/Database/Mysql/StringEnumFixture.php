<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Mysql;

/** A string-backed enum for parameter binding tests. */
enum StringEnumFixture: string
{
    case Hearts = 'H';
}
