<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Mysql;

/** An int-backed enum for parameter binding tests. */
enum IntEnumFixture: int
{
    case High = 3;
}
