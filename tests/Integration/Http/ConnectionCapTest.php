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
        $this->async(function (): void {
            $release = false;
            $handler = static function (Request $request) use (&$release): Response {
                for ($i = 0; $i < 1000 && !$release; $i++) {
                    sleep(0.01);
                }

                return Response::text('done');
            };
            $server = new Server(new ClosureHandler($handler), new ServerConfig(maxConnections: self::CAP));
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
                $response = timeout(1.0, static fn () => RawHttp::request($listener->getAddress(), self::GET));
                self::assertSame(503, $response->status);
                self::assertSame('close', $response->header('Connection'));
                self::assertNotNull($response->header('Retry-After'));
                self::assertSame(1, $server->stats()['rejected']);
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
