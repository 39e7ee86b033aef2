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
 * does the same) must not keep the worker from the other connections.
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
}
