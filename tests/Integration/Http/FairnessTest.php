<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Http;

use Petrel\Http\ClosureHandler;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\Server;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\RawHttp;

use function Petrel\go;
use function Petrel\sleep;
use function Petrel\Socket\listen;

/**
 * A connection whose next request is always ready (pipelined here; a fast load generator
 * does the same) must not keep the worker from the other connections, nor a busy worker
 * from accepting new ones.
 */
final class FairnessTest extends AsyncTestCase
{
    public function testABusyConnectionDoesNotStarveTheOthers(): void
    {
        $this->async(static function (): void {
            $served = [];
            $handler = static function (Request $request) use (&$served): Response {
                $served[] = $request->getPath();

                return Response::text('ok');
            };
            $listener = listen('127.0.0.1:0');
            $server = new Server(new ClosureHandler($handler));
            $serving = go($server->serve(...), $listener, 5.0);
            try {
                $busy = RawHttp::connect($listener->getAddress());
                $other = RawHttp::connect($listener->getAddress());
                sleep(0.01); // both accepted
                $busy->write(\str_repeat("GET /busy HTTP/1.1\r\nHost: x\r\n\r\n", 300));
                $other->write("GET /other HTTP/1.1\r\nHost: x\r\n\r\n");
                self::assertSame('ok', RawHttp::readResponse($other)?->body);

                $position = \array_search('/other', $served, true);
                self::assertIsInt($position);
                self::assertLessThan(50, $position, 'served long before the 300 pipelined requests were done');
                $busy->close();
                $other->close();
            } finally {
                $server->stop();
                $serving->join();
            }
        });
    }

    public function testABurstOfNewConnectionsIsAcceptedWhileTheWorkerIsBusy(): void
    {
        $this->async(static function (): void {
            // /busy costs 2 ms of CPU: with 4 connections pipelining it, every loop turn
            // takes ~60 ms. Accepting one connection per turn, 64 clients arriving at once
            // would wait ~4 s for the last accept; in batches, well under a second.
            $handler = static function (Request $request): Response {
                if ($request->getPath() === '/busy') {
                    $until = \hrtime(true) + 2_000_000;
                    while (\hrtime(true) < $until) {
                        // CPU work: the loop cannot run meanwhile
                    }
                }

                return Response::text('ok');
            };
            $listener = listen('127.0.0.1:0');
            $server = new Server(new ClosureHandler($handler));
            $serving = go($server->serve(...), $listener, 1.0);
            $busy = [];
            try {
                for ($i = 0; $i < 4; $i++) {
                    $busy[$i] = RawHttp::connect($listener->getAddress());
                    $busy[$i]->write(\str_repeat("GET /busy HTTP/1.1\r\nHost: x\r\n\r\n", 300));
                }
                sleep(0.1); // the worker is busy now
                $started = \hrtime(true);
                $clients = [];
                for ($i = 0; $i < 64; $i++) {
                    $clients[] = go(static fn (): int => RawHttp::get($listener->getAddress(), '/new')->status);
                }
                foreach ($clients as $client) {
                    self::assertSame(200, $client->join());
                }
                $seconds = (\hrtime(true) - $started) / 1e9;
                self::assertLessThan(1.5, $seconds, 'all 64 new clients answered while 4 connections keep the worker busy');
            } finally {
                foreach ($busy as $connection) {
                    $connection->close();
                }
                $server->stop();
                $serving->join();
            }
        });
    }
}
