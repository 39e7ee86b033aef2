<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\PetrelProcess;
use Petrel\Tests\Support\RawHttp;

/**
 * Idle keep-alive connections must never lock new clients out. Before, a worker at its
 * connection cap stopped accepting: 2,000 idle sockets on 2 workers left every new client
 * unanswered in the kernel's accept queue for the whole 75 s idle timeout. Now the
 * longest-idle connection makes room (as nginx does), and a worker whose connections are
 * all busy answers 503. Here at a small cap (--max-connections), through the real CLI.
 */
final class IdleConnectionsTest extends AsyncTestCase
{
    private const CAP = 20;

    public function testANewClientIsServedWhileTheCapIsFullOfIdleConnections(): void
    {
        $server = (new PetrelProcess(\dirname(__DIR__, 2) . '/examples/hello.php', ['--workers=1', '--max-connections=' . self::CAP]))->start();
        try {
            self::assertStringContainsString(self::CAP . ' connections per worker', $server->log());
            $this->async(static function () use ($server): void {
                $idle = [];
                for ($i = 0; $i < self::CAP; $i++) {
                    $socket = RawHttp::connect($server->address);
                    $socket->write("GET / HTTP/1.1\r\nHost: test\r\n\r\n");
                    self::assertStringStartsWith('HTTP/1.1 200', (string) $socket->read());
                    $idle[] = $socket; // answered, kept open: an idle keep-alive connection
                }
                for ($probe = 0; $probe < 5; $probe++) {
                    $started = \microtime(true);
                    $response = \Petrel\timeout(10.0, static fn () => RawHttp::get($server->address, '/'));
                    self::assertSame(200, $response->status);
                    self::assertSame('Hello, World!', $response->body);
                    // Generous for a loaded machine; before the fix this waited 75 s.
                    self::assertLessThan(5.0, \microtime(true) - $started, 'a new client waited for the idle ones');
                }
                // The first newcomer found the cap full and the longest-idle connection made
                // room; each later one found the slot its predecessor (Connection: close) left.
                foreach ($idle as $i => $socket) {
                    if ($i === 0) {
                        self::assertNull(\Petrel\timeout(5.0, static fn () => $socket->read()), "idle connection {$i} was closed");
                    } else {
                        try {
                            \Petrel\timeout(0.1, static fn () => $socket->read());
                            self::fail("idle connection {$i} was closed: only the longest-idle one had to go");
                        } catch (\Petrel\Coroutine\TimeoutException) {
                            // still open, as it should be
                        }
                    }
                    $socket->close();
                }
            }, 60.0);
        } finally {
            $server->stop();
        }
    }
}
