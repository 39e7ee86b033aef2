<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Http;

use Petrel\Coroutine\Scheduler;
use Petrel\Http\ClosureHandler;
use Petrel\Http\Response;
use Petrel\Http\Server;
use Petrel\Http\ServerConfig;
use Petrel\Socket\Socket;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\RawHttp;

use function Petrel\go;
use function Petrel\Socket\listen;
use function Petrel\timeout;

/**
 * A keep-alive connection waiting for its next request holds no coroutine (no fiber), yet
 * it is still counted, answered, timed out by the sweeper and let go by a stop.
 */
final class IdleConnectionTest extends AsyncTestCase
{
    private const CLIENTS = 30;
    private const GET = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

    public function testIdleKeepAliveConnectionsHoldNoCoroutineAndAreServedAgain(): void
    {
        $this->async(function (): void {
            [$server, $listener, $serving] = self::start(new ServerConfig());
            $before = \count(Scheduler::get()->coroutines());
            $clients = self::connectAll($listener->getAddress());
            self::assertSame(self::CLIENTS, $server->stats()['connections']);
            self::assertLessThanOrEqual($before + 2, \count(Scheduler::get()->coroutines()), 'a runner or two, not one per connection');
            foreach ($clients as $client) {
                $client->write(self::GET);
            }
            foreach ($clients as $i => $client) {
                self::assertSame('ok', RawHttp::readResponse($client)?->body, "#{$i} answered again");
            }
            $server->stop();
            foreach ($clients as $i => $client) {
                self::assertNull(timeout(3.0, static fn () => $client->read()), "#{$i} closed by the stop after its grace");
                $client->close();
            }
            $serving->join();
            self::assertSame(0, $server->stats()['connections']);
        });
    }

    public function testTheSweeperClosesParkedConnectionsAfterTheIdleTimeout(): void
    {
        $this->async(function (): void {
            [$server, $listener, $serving] = self::start(new ServerConfig(idleTimeout: 0.3));
            $clients = self::connectAll($listener->getAddress());
            foreach ($clients as $i => $client) {
                self::assertNull(timeout(2.0, static fn () => $client->read()), "#{$i} closed by the sweeper");
                $client->close();
            }
            self::assertSame(0, $server->stats()['connections']);
            $server->stop();
            $serving->join();
        });
    }

    /** @return array{Server, \Petrel\Socket\SocketServer, \Petrel\Coroutine\Coroutine} */
    private static function start(ServerConfig $config): array
    {
        $server = new Server(new ClosureHandler(static fn (): Response => Response::text('ok')), $config);
        $listener = listen('127.0.0.1:0');

        return [$server, $listener, go($server->serve(...), $listener, 5.0)];
    }

    /** @return list<Socket> clients that got one response each and keep the connection */
    private static function connectAll(string $address): array
    {
        $clients = [];
        for ($i = 0; $i < self::CLIENTS; $i++) {
            $clients[$i] = RawHttp::connect($address);
            $clients[$i]->write(self::GET);
            self::assertSame('ok', RawHttp::readResponse($clients[$i])?->body);
        }

        return $clients;
    }
}
