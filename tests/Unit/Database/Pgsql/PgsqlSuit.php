<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Pgsql;

/** A backed enum for parameter tests. */
enum PgsqlSuit: string
{
    case Hearts = 'hearts';
}
