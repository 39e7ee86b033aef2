<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Socket;

use Petrel\Coroutine\Scheduler;
use Petrel\Loop\LoopError;
use Petrel\Socket\ConnectOptions;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\Socket\connect;
use function Petrel\Socket\listen;
use function Petrel\timeout;

final class ConnectCleanupTest extends AsyncTestCase
{
    /**
     * connect() registered its writable watcher outside the try that cleans up, so a timer
     * the driver refused left the watcher (firing each tick on the connected stream: a
     * spin) and the stream behind. ConnectOptions now refuses such a timeout; this options
     * object skips its constructor to reach the safety net behind it.
     */
    public function testATimerTheDriverRefusesLeavesNoWatcherAndClosesTheStream(): void
    {
        $this->async(function (): void {
            $options = (new \ReflectionClass(ConnectOptions::class))->newInstanceWithoutConstructor();
            (function (): void {
                $this->connectTimeout = -1.0;
                $this->tls = null;
                $this->noDelay = true;
            })->call($options);
            $server = listen('127.0.0.1:0');
            $watchers = \array_keys(Scheduler::get()->driver->watchers());
            try {
                connect($server->getAddress(), $options);
                self::fail('connect() took a negative timeout');
            } catch (LoopError $error) {
                self::assertStringContainsString('Timer delay must be >= 0', $error->getMessage());
            }
            self::assertSame($watchers, \array_keys(Scheduler::get()->driver->watchers()), 'connect() left watchers behind');
            $peer = $server->accept(); // the kernel completed the connection before the failure
            self::assertNotNull($peer);
            self::assertNull(timeout(5.0, static fn () => $peer->read()), 'the peer saw no close');
            $peer->close();
            $server->close();
        });
    }
}
