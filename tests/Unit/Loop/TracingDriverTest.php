<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Loop;

use Petrel\Loop\Driver;
use Petrel\Loop\StreamSelectDriver;
use Petrel\Loop\TracingDriver;

final class TracingDriverTest extends DriverTestCase
{
    protected function createDriver(): Driver
    {
        return new TracingDriver(new StreamSelectDriver(), 60.0, \fopen('php://memory', 'w+'));
    }

    protected function manyStreamsUnsupported(): string
    {
        return 'stream_select() handles descriptors below FD_SETSIZE (1024) only';
    }

    public function testNamesWhereEachWatcherWasCreated(): void
    {
        $output = \fopen('php://memory', 'w+');
        self::assertIsResource($output);
        $loop = new TracingDriver(new StreamSelectDriver(), 0.01, $output);
        $loop->delay(0.035, static function (): void {
        });
        $line = __LINE__ - 2;
        self::assertStringContainsString(__FILE__ . ':' . $line, $loop->describeReferenced());
        $loop->run();
        \rewind($output);
        $report = (string) \stream_get_contents($output);
        self::assertStringContainsString('[petrel loop] still running', $report);
        self::assertStringContainsString(__FILE__ . ':' . $line, $report);
    }
}
