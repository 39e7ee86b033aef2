<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Loop;

use Petrel\Loop\Driver;
use Petrel\Loop\StreamSelectDriver;

final class StreamSelectDriverTest extends DriverTestCase
{
    protected function createDriver(): Driver
    {
        return new StreamSelectDriver();
    }
}
