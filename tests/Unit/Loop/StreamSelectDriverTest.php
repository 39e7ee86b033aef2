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

    protected function manyStreamsUnsupported(): string
    {
        return 'stream_select() handles descriptors below FD_SETSIZE (1024) only';
    }
}
