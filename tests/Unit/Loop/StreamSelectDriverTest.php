<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Loop;

use Petrel\Loop\Driver;
use Petrel\Loop\LoopError;
use Petrel\Loop\StreamSelectDriver;
use Petrel\Tests\Support\OpenFiles;

final class StreamSelectDriverTest extends DriverTestCase
{
    /**
     * A stream whose descriptor is past FD_SETSIZE made stream_select() fail at once, every
     * time, and the loop took that for a timeout: it spun at 100 % CPU calling back nothing.
     * It fails now, saying why.
     */
    public function testADescriptorPastFdSetSizeFailsTheLoopSayingWhy(): void
    {
        if (($reason = OpenFiles::atLeast(1200)) !== null) {
            self::markTestSkipped($reason);
        }
        $fillers = OpenFiles::fillPastSelectLimit();
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, 0);
        self::assertIsArray($pair);
        \fwrite($pair[1], 'x');
        $loop = $this->createDriver();
        $called = false;
        $loop->onReadable($pair[0], static function () use (&$called): void {
            $called = true;
        });
        $loop->delay(1.0, $loop->stop(...)); // how the spin ended before
        try {
            $loop->run();
            self::fail('the loop ran on');
        } catch (LoopError $error) {
            self::assertStringContainsString('cannot watch a descriptor numbered 1,024 or higher (FD_SETSIZE; this one is 10', $error->getMessage());
        } finally {
            \array_map(\fclose(...), [...$fillers, ...$pair]);
        }
        self::assertFalse($called);
    }

    protected function createDriver(): Driver
    {
        return new StreamSelectDriver();
    }

    protected function manyStreamsUnsupported(): string
    {
        return 'stream_select() handles descriptors below FD_SETSIZE (1024) only';
    }
}
