<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Http;

use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\Context;
use Petrel\Coroutine\Scheduler;
use Petrel\Http\ClosureHandler;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\Server;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\InProcessServer;
use Petrel\Tests\Support\RawHttp;

use function Petrel\defer;
use function Petrel\sleep;

/**
 * Each request runs in a coroutine of its own, also on a keep-alive connection: its
 * Context, defers (how pools return leased connections) and cancellation end with it.
 */
final class RequestCoroutineTest extends AsyncTestCase
{
    /**
     * @param \Closure(Request): Response $handler
     * @param \Closure(string, Server): void $test gets the server's address
     */
    private function serve(\Closure $handler, \Closure $test, float $drainTimeout = 5.0): void
    {
        $this->async(static function () use ($handler, $test, $drainTimeout): void {
            InProcessServer::around(new Server(new ClosureHandler($handler)), $test, $drainTimeout);
        });
    }

    public function testKeepAliveRequestsDoNotShareContextOrDefers(): void
    {
        $log = [];
        $handler = static function (Request $request) use (&$log): Response {
            $id = Scheduler::get()->current()?->id;
            $log[] = "{$request->getTarget()} sees " . (Context::get('user') ?? 'nothing');
            Context::set('user', $request->getTarget());
            defer(static function () use (&$log, $request): void {
                $log[] = "{$request->getTarget()} ended";
            });
            if ($request->getTarget() === '/slow') {
                sleep(0.005);
            }

            return Response::text((string) $id);
        };
        $this->serve($handler, static function (string $address) use (&$log): void {
            $socket = RawHttp::connect($address);
            $ids = [];
            foreach (['/a', '/slow', '/b'] as $target) {
                $socket->write("GET {$target} HTTP/1.1\r\nHost: x\r\n\r\n");
                $ids[] = RawHttp::readResponse($socket)?->body;
            }
            $socket->close();
            self::assertSame(3, \count(\array_unique($ids)), 'each request ran in a coroutine of its own');
            self::assertSame([
                '/a sees nothing', '/a ended',
                '/slow sees nothing', '/slow ended',
                '/b sees nothing', '/b ended',
            ], $log);
        });
    }

    public function testAbortingTheConnectionCancelsTheRequest(): void
    {
        $log = [];
        $handler = static function () use (&$log): Response {
            try {
                sleep(10);
            } catch (CancelledException) {
                $log[] = 'cancelled';
            }

            return Response::text('late');
        };
        $this->serve($handler, static function (string $address, Server $server) use (&$log): void {
            $socket = RawHttp::connect($address);
            $socket->write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
            sleep(0.01);
            $server->stop(); // the drain timeout (0.05 s) aborts the busy connection
            self::assertNull(RawHttp::readResponse($socket));
        }, 0.05);
        self::assertSame(['cancelled'], $log);
    }
}
