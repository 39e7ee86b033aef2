<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Http;

use Petrel\Http\ClosureHandler;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\Server;
use Petrel\Http\ServerConfig;
use Petrel\Socket\Socket;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\RawHttp;

use function Petrel\go;
use function Petrel\sleep;
use function Petrel\Socket\listen;
use function Petrel\timeout;

/**
 * At the connection cap a new client is never left unanswered in the accept queue: the
 * longest-idle keep-alive connection makes room, or, when none is idle, it gets a 503.
 */
final class ConnectionCapTest extends AsyncTestCase
{
    private const CAP = 20;
    private const GET = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

    public function testIdleKeepAliveConnectionsMakeRoomLongestIdleFirst(): void
    {
        $this->async(function (): void {
            $server = new Server(new ClosureHandler(static fn (): Response => Response::text('ok')), new ServerConfig(maxConnections: self::CAP));
            $listener = listen('127.0.0.1:0');
            $serving = go($server->serve(...), $listener, 5.0);
            try {
                $idle = [];
                for ($i = 0; $i < self::CAP; $i++) { // one request each, in order: #0 idle the longest
                    $idle[$i] = RawHttp::connect($listener->getAddress());
                    $idle[$i]->write(self::GET);
                    self::assertSame('ok', RawHttp::readResponse($idle[$i])?->body);
                }
                $newcomers = [];
                for ($round = 0; $round < 5; $round++) {
                    // Answered within 1 s (a generous bound: before, it waited in the accept
                    // queue for the 75 s idle timeout); it stays open, so the cap stays reached.
                    $newcomers[$round] = $client = RawHttp::connect($listener->getAddress());
                    $client->write(self::GET);
                    self::assertSame('ok', timeout(1.0, static fn () => RawHttp::readResponse($client))?->body, "round {$round}");
                    self::assertNull(timeout(1.0, static fn () => $idle[$round]->read()), "#{$round}, the longest idle, was closed");
                }
                self::closeAll($newcomers);
                $idle[5]->write(self::GET);
                self::assertSame('ok', RawHttp::readResponse($idle[5])?->body, 'the others stay open');
                self::assertSame(5, $server->stats()['evicted']);
                self::closeAll($idle);
            } finally {
                $server->stop();
                $serving->join();
            }
        });
    }

    public function testWithEverySlotBusyANewClientGets503AtOnce(): void
    {
        $this->withEverySlotBusy(new ServerConfig(maxConnections: self::CAP), static function (Server $server, string $address): void {
            $response = timeout(1.0, static fn () => RawHttp::request($address, self::GET));
            self::assertSame(503, $response->status);
            self::assertSame('close', $response->header('Connection'));
            self::assertNotNull($response->header('Retry-After'));
            self::assertSame(1, $server->stats()['rejected']);
        });
    }

    /**
     * The 503s are sockets held for a lingering close: past maxRejecting of them a newcomer
     * is closed at once (under the select driver bin/petrel sets it so that no socket
     * passes FD_SETSIZE: with 1,000 served and 1,000 turning away, the loop spun at 100 %
     * CPU serving nothing).
     */
    public function testPastMaxRejectingANewcomerIsClosedAtOnce(): void
    {
        $this->withEverySlotBusy(new ServerConfig(maxConnections: self::CAP, maxRejecting: 1), static function (Server $server, string $address): void {
            $first = RawHttp::connect($address);
            $first->write(self::GET);
            self::assertSame(503, timeout(1.0, static fn () => RawHttp::readResponse($first))?->status, 'the first is turned away with a 503');
            $second = RawHttp::connect($address); // no request: a close with it unread would be a reset
            self::assertNull(timeout(1.0, static fn () => $second->read()), 'the second is closed at once, nothing written');
            self::assertSame(2, $server->stats()['rejected']);
            self::assertSame(self::CAP + 1, $server->stats()['connections'], 'the served ones and the first, lingering');
            $first->close();
            $second->close();
        });
    }

    /**
     * Runs $test (given the server and its address) while all CAP connections of a server
     * configured with $config are in a handler that waits to be released, then releases them
     * and checks each is answered.
     *
     * @param \Closure(Server, string): void $test
     */
    private function withEverySlotBusy(ServerConfig $config, \Closure $test): void
    {
        $this->async(function () use ($config, $test): void {
            $release = false;
            $handler = static function (Request $request) use (&$release): Response {
                for ($i = 0; $i < 1000 && !$release; $i++) {
                    sleep(0.01);
                }

                return Response::text('done');
            };
            $server = new Server(new ClosureHandler($handler), $config);
            $listener = listen('127.0.0.1:0');
            $serving = go($server->serve(...), $listener, 5.0);
            $busy = [];
            try {
                for ($i = 0; $i < self::CAP; $i++) {
                    $busy[$i] = RawHttp::connect($listener->getAddress());
                    $busy[$i]->write(self::GET);
                }
                // Every request is in its handler once the server has seen them all.
                $until = \hrtime(true) + 5_000_000_000;
                while ($server->stats()['connections'] < self::CAP && \hrtime(true) < $until) {
                    sleep(0.005);
                }
                sleep(0.05);
                $test($server, $listener->getAddress());
                $release = true;
                foreach ($busy as $socket) {
                    self::assertSame('done', RawHttp::readResponse($socket)?->body, 'the busy ones are served');
                }
                self::closeAll($busy);
            } finally {
                $release = true;
                $server->stop();
                $serving->join();
            }
        });
    }

    /** @param array<int, Socket> $sockets */
    private static function closeAll(array $sockets): void
    {
        foreach ($sockets as $socket) {
            $socket->close();
        }
    }
}
