<?php

declare(strict_types=1);

namespace Petrel\Tests\Support;

use Petrel\Http\Server;

use function Petrel\go;
use function Petrel\Socket\listen;

/**
 * Runs a Server in this process on 127.0.0.1:0 around a test, inside a coroutine (the
 * caller's AsyncTestCase::async()): the test gets the address and the server; the server
 * is stopped and drained when the test ends, failed or not.
 */
final class InProcessServer
{
    /** @param \Closure(string, Server): void $test */
    public static function around(Server $server, \Closure $test, float $drainTimeout = 5.0): void
    {
        $listener = listen('127.0.0.1:0');
        $serving = go($server->serve(...), $listener, $drainTimeout);
        try {
            $test($listener->getAddress(), $server);
        } finally {
            $server->stop();
            $serving->join();
        }
    }
}
