<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Http;

use Petrel\Http\ClosureHandler;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\Server;
use Petrel\Http\ServerConfig;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\InProcessServer;
use Petrel\Tests\Support\RawHttp;

use function Petrel\sleep;

/** Sync mode: one request at a time per worker, and none for clients that have left. */
final class SyncModeTest extends AsyncTestCase
{
    public function testRequestsRunOneAtATimeAndThoseWhoseClientLeftWhileQueuedAreDropped(): void
    {
        $this->async(static function (): void {
            $ran = [];
            $running = 0;
            $overlap = false;
            $handler = static function (Request $request) use (&$ran, &$running, &$overlap): Response {
                $overlap = $overlap || $running > 0;
                ++$running;
                $ran[] = $request->getPath();
                sleep(0.05);
                --$running;

                return Response::text($request->getPath());
            };
            InProcessServer::around(new Server(new ClosureHandler($handler), new ServerConfig(mode: ServerConfig::MODE_SYNC)), static function (string $address) use (&$ran, &$overlap): void {
                $first = RawHttp::connect($address);
                $first->write("GET /first HTTP/1.1\r\nHost: x\r\n\r\n");
                sleep(0.01);                                  // /first now holds the worker
                $gone = RawHttp::connect($address);
                $gone->write("GET /gone HTTP/1.1\r\nHost: x\r\n\r\n");
                $waiting = RawHttp::connect($address);
                $waiting->write("GET /waiting HTTP/1.1\r\nHost: x\r\n\r\n");
                sleep(0.01);                                  // both are queued behind it
                $gone->close();

                self::assertSame('/first', RawHttp::readResponse($first)?->body);
                self::assertSame('/waiting', RawHttp::readResponse($waiting)?->body);
                self::assertSame(['/first', '/waiting'], $ran, 'the request whose client left never ran');
                self::assertFalse($overlap, 'one request at a time');
                $first->close();
                $waiting->close();
            });
        });
    }

    public function testAResponsesAfterSendWorkRunsOnceItIsWrittenAndBeforeTheNextRequest(): void
    {
        $this->async(static function (): void {
            $log = [];
            $handler = static function (Request $request) use (&$log): Response {
                $log[] = "handle {$request->getPath()}";

                return Response::text($request->getPath())->withAfterSend(static function () use ($request, &$log): void {
                    sleep(0.3); // a coroutine wait: only the worker's lock keeps the next request out
                    $log[] = "after {$request->getPath()}";
                });
            };
            InProcessServer::around(new Server(new ClosureHandler($handler), new ServerConfig(mode: ServerConfig::MODE_SYNC)), static function (string $address) use (&$log): void {
                $first = RawHttp::connect($address);
                $first->write("GET /first HTTP/1.1\r\nHost: x\r\n\r\n");
                sleep(0.01);
                $second = RawHttp::connect($address);
                $second->write("GET /second HTTP/1.1\r\nHost: x\r\n\r\n");

                self::assertSame('/first', RawHttp::readResponse($first)?->body);
                self::assertSame(['handle /first'], $log, 'the client has its response before the after-send work is done');
                self::assertSame('/second', RawHttp::readResponse($second)?->body);
                self::assertSame(['handle /first', 'after /first', 'handle /second'], \array_slice($log, 0, 3), 'the next request waits for it');
                $first->close();
                $second->close();
            });
        });
    }
}
