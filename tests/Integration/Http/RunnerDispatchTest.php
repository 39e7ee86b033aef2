<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Http;

use Petrel\Coroutine\Scheduler;
use Petrel\Http\ClosureHandler;
use Petrel\Http\Response;
use Petrel\Http\Server;
use Petrel\Loop\DriverFactory;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\CountingDriver;
use Petrel\Tests\Support\InProcessServer;
use Petrel\Tests\Support\RawHttp;

/**
 * How ConnectionRunners hands parked connections to a runner: a connection whose client's
 * bytes are the loop tick's only event is served at once, from the socket's callback;
 * connections ready together in one tick wait for one deferred callback and are served one
 * after the other on one runner.
 */
final class RunnerDispatchTest extends AsyncTestCase
{
    private const GET = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";

    private CountingDriver $driver;

    protected function setUp(): void
    {
        parent::setUp();
        $this->useDriver($this->driver = new CountingDriver(DriverFactory::create()));
    }

    protected function tearDown(): void
    {
        Scheduler::reset();
    }

    public function testALoneReadyConnectionIsServedWithoutADeferredCallback(): void
    {
        $this->async(function (): void {
            InProcessServer::around(self::server(), function (string $address): void {
                $client = RawHttp::connect($address);
                $client->write(self::GET);
                self::assertSame('ok', RawHttp::readResponse($client)?->body);
                $deferred = $this->driver->deferred;
                for ($i = 0; $i < 20; $i++) {
                    $client->write(self::GET);
                    self::assertSame('ok', RawHttp::readResponse($client)?->body, "request {$i}");
                }
                self::assertLessThan(5, $this->driver->deferred - $deferred, '20 requests, each its tick\'s only event: served at once');
                $client->close();
            });
        });
    }

    public function testConnectionsReadyInOneTickShareOneDispatchAndOneRunner(): void
    {
        $this->async(function (): void {
            InProcessServer::around(self::server(), function (string $address): void {
                $clients = [];
                for ($i = 0; $i < 10; $i++) {
                    $clients[$i] = RawHttp::connect($address);
                    $clients[$i]->write(self::GET);
                    self::assertSame('ok', RawHttp::readResponse($clients[$i])?->body);
                }
                $coroutines = \count(Scheduler::get()->coroutines());
                $deferred = $this->driver->deferred;
                foreach ($clients as $client) {
                    $client->write(self::GET); // all ten before this coroutine lets the loop wait
                }
                foreach ($clients as $i => $client) {
                    self::assertSame('ok', RawHttp::readResponse($client)?->body, "#{$i}");
                }
                self::assertSame(1, $this->driver->deferred - $deferred, 'one deferred dispatch serves the ten');
                self::assertLessThanOrEqual($coroutines, \count(Scheduler::get()->coroutines()), 'no runner more');
                foreach ($clients as $client) {
                    $client->close();
                }
            });
        });
    }

    private static function server(): Server
    {
        return new Server(new ClosureHandler(static fn (): Response => Response::text('ok')));
    }
}
