<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Console;

use Petrel\Console\ConsoleException;
use Petrel\Console\Internal\ConnectionLimit;
use Petrel\Console\StartOptions;
use Petrel\Loop\DriverChoice;
use PHPUnit\Framework\TestCase;

final class ConnectionLimitTest extends TestCase
{
    public function testSelectIsCappedByFdSetSizeAndTheDescriptorLimit(): void
    {
        $select = new DriverChoice('select');
        self::assertSame(1000, ConnectionLimit::maximum($select, 65536));
        self::assertSame(768, ConnectionLimit::maximum($select, 1024));
        self::assertSame(300, ConnectionLimit::resolve(300, $select, 65536));
        self::assertSame(1000, ConnectionLimit::resolve(1000, $select, 65536));
    }

    /**
     * Under select the 503s to newcomers at the cap are sockets too: served and turned away
     * stay within the maximum (past FD_SETSIZE the loop cannot watch them). Other drivers
     * keep ServerConfig's default, as many as served.
     */
    public function testUnderSelectTheTurnedAwayShareTheMaximum(): void
    {
        $select = new DriverChoice('select');
        self::assertSame(0, ConnectionLimit::rejecting($select, 1000, 65536), 'a cap of 1,000 leaves none: a newcomer is closed');
        self::assertSame(600, ConnectionLimit::rejecting($select, 400, 65536));
        self::assertSame(368, ConnectionLimit::rejecting($select, 400, 1024), 'within the descriptor limit too');
        self::assertNull(ConnectionLimit::rejecting(new DriverChoice('epoll'), 1000, 65536));
    }

    /**
     * The default cap under select was the whole maximum: a newcomer finding every
     * connection busy was closed at once (a reset) where other drivers answer 503. It
     * leaves a sixteenth for the 503s now.
     */
    public function testUnderSelectTheDefaultCapLeavesRoomFor503s(): void
    {
        $select = new DriverChoice('select');
        foreach ([65536 => [938, 62], 1024 => [720, 48], 257 => [1, 0]] as $descriptors => $expected) {
            $served = ConnectionLimit::resolve(null, $select, $descriptors);
            self::assertSame($expected, [$served, ConnectionLimit::rejecting($select, $served, $descriptors)], "{$descriptors} descriptors");
        }
        self::assertSame((65536 - 256) / 2, ConnectionLimit::resolve(null, new DriverChoice('epoll'), 65536), 'no share kept elsewhere');
    }

    public function testOtherDriversGetHalfTheDescriptorsLeftAfterTheReserve(): void
    {
        self::assertSame((65536 - 256) / 2, ConnectionLimit::maximum(new DriverChoice('epoll'), 65536));
        $this->expectException(ConsoleException::class);
        $this->expectExceptionMessage('--max-connections=40000 needs about 80256 descriptors per worker, the limit is 65536 (ulimit -n); raise the limit or use at most 32640');
        ConnectionLimit::resolve(40000, new DriverChoice('epoll'), 65536);
    }

    public function testTooManyForSelectNamesTheWayOut(): void
    {
        $this->expectExceptionMessage('--max-connections=5000 is more than the select driver can watch (at most 1000 per worker); use the epoll driver');
        ConnectionLimit::resolve(5000, new DriverChoice('select'), 65536);
    }

    public function testTheStartLineSaysWhichDriverAndWhyItFellBack(): void
    {
        self::assertSame('driver epoll', ConnectionLimit::describe(new DriverChoice('epoll')));
        self::assertSame(
            'driver select (epoll unavailable (FFI is disabled); using stream_select, at most ~1,000 connections per worker)',
            ConnectionLimit::describe(new DriverChoice('select', 'epoll unavailable (FFI is disabled); using stream_select, at most ~1,000 connections per worker')),
        );
    }

    public function testMemoryOptionDefaults(): void
    {
        $options = StartOptions::parse(['app.php'], [], []);
        self::assertSame(0, $options->maxMemory);
        self::assertSame(512 << 20, $options->memoryLimit);
        self::assertNull($options->maxConnections);
        $options = StartOptions::parse(['app.php'], ['max-memory' => '1G', 'max-connections' => '200'], []);
        self::assertSame(1 << 30, $options->maxMemory);
        self::assertSame(2 << 30, $options->memoryLimit, 'twice --max-memory when that is above 512M');
        self::assertSame(200, $options->withMaxConnections(200)->maxConnections);
        self::assertSame(-1, StartOptions::parse(['app.php'], ['memory-limit' => '-1'], [])->memoryLimit);
    }
}
