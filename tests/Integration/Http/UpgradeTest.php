<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Http;

use Petrel\Coroutine\CancelledException;
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

/** Response::upgrade() over a real socket: 101, then the handler owns the connection. */
final class UpgradeTest extends AsyncTestCase
{
    private const UPGRADE = "GET /echo HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n";

    public function testTheHandlerGetsTheSocketAndTheBytesSentPastTheRequestAndNoHttpTimeout(): void
    {
        $this->async(function (): void {
            $server = new Server(new ClosureHandler(self::echoHandler()), new ServerConfig(headerTimeout: 0.2, idleTimeout: 0.2));
            [$listener, $serving] = self::start($server);
            try {
                $client = RawHttp::connect($listener->getAddress());
                $client->write(self::UPGRADE . 'early');
                $response = RawHttp::readResponse($client);
                self::assertSame(101, $response?->status);
                self::assertSame('echo', $response->header('Upgrade'));
                self::assertSame('Upgrade', $response->header('Connection'));
                self::assertSame('early', $client->readExactly(5), 'bytes sent with the request reach the handler');
                sleep(0.8); // well past the header and idle timeouts: the sweeper leaves it alone
                self::assertSame(1, $server->stats()['connections'], 'still counted');
                $client->write('ping');
                self::assertSame('ping', $client->readExactly(4));
                $client->end();
                self::assertNull($client->read(), 'closed once the handler returns');
                $client->close();
            } finally {
                $server->stop();
                $serving->join();
            }
        });
    }

    public function testMisusesAreAnswered500AndLogged(): void
    {
        $this->async(function (): void {
            $logged = [];
            $handler = static function (Request $request): Response {
                return $request->getPath() === '/plain'
                    ? new Response(101, ['Upgrade' => 'echo'])
                    : Response::upgrade(['Upgrade' => 'echo'], static function (): void {
                    });
            };
            $server = new Server(new ClosureHandler($handler));
            $server->setErrorLogger(static function (\Throwable $error) use (&$logged): void {
                $logged[] = $error->getMessage();
            });
            [$listener, $serving] = self::start($server);
            try {
                $address = $listener->getAddress();
                $old = RawHttp::request($address, "GET /echo HTTP/1.0\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n");
                self::assertSame(500, $old->status);
                self::assertSame('close', $old->header('Connection'));
                $plain = RawHttp::request($address, "GET /plain HTTP/1.1\r\nHost: x\r\n\r\n");
                self::assertSame(500, $plain->status);
                self::assertCount(2, $logged);
                self::assertStringContainsString('HTTP/1.0', $logged[0]);
                self::assertStringContainsString('without an upgrade handler', $logged[1]);
            } finally {
                $server->stop();
                $serving->join();
            }
        });
    }

    public function testAThrowingHandlerIsLoggedAndItsConnectionClosed(): void
    {
        $this->async(function (): void {
            $logged = [];
            $handler = static fn (): Response => Response::upgrade(['Upgrade' => 'echo'], static function (Socket $socket): void {
                $socket->write('bye');
                throw new \RuntimeException('protocol failure');
            });
            $server = new Server(new ClosureHandler($handler));
            $server->setErrorLogger(static function (\Throwable $error, Request $request) use (&$logged): void {
                $logged[] = $request->getPath() . ': ' . $error->getMessage();
            });
            [$listener, $serving] = self::start($server);
            try {
                $client = RawHttp::connect($listener->getAddress());
                $client->write(self::UPGRADE);
                self::assertSame(101, RawHttp::readResponse($client)?->status);
                self::assertSame('bye', $client->readExactly(3));
                self::assertNull($client->read(), 'closed after the throw');
                self::assertSame(['/echo: protocol failure'], $logged);
                $client->close();
            } finally {
                $server->stop();
                $serving->join();
            }
        });
    }

    public function testStopLeavesAnUpgradedConnectionAloneUntilTheDrainTimeoutAbortsIt(): void
    {
        $this->async(function (): void {
            $cancelled = false;
            $handler = static function () use (&$cancelled): Response {
                return Response::upgrade(['Upgrade' => 'echo'], static function (Socket $socket) use (&$cancelled): void {
                    try {
                        while (($data = $socket->read()) !== null) {
                            $socket->write($data);
                        }
                    } catch (CancelledException | \Petrel\Socket\SocketException $e) {
                        $cancelled = true; // an arrow function would capture a copy
                        throw $e;
                    }
                });
            };
            $server = new Server(new ClosureHandler($handler));
            $listener = listen('127.0.0.1:0');
            // The drain timeout is well past the idle grace and a sweep (1.6 s): a loaded
            // machine must not turn the margin between them into a race.
            $serving = go($server->serve(...), $listener, 5.0);
            $client = RawHttp::connect($listener->getAddress());
            $client->write(self::UPGRADE);
            self::assertSame(101, RawHttp::readResponse($client)?->status);
            $server->stop();
            sleep(Server::STOP_GRACE + 0.6); // past the idle grace and a sweep
            $client->write('still');
            self::assertSame('still', $client->readExactly(5), 'not closed by the idle grace');
            self::assertFalse($serving->isFinished());
            $serving->join(); // the 5 s drain timeout aborts it
            self::assertTrue($cancelled);
            self::assertNull($client->read());
            $client->close();
        });
    }

    /** @return \Closure(): Response */
    private static function echoHandler(): \Closure
    {
        return static fn (): Response => Response::upgrade(['Upgrade' => 'echo'], static function (Socket $socket, string $buffered): void {
            $socket->write($buffered);
            while (($data = $socket->read()) !== null) {
                $socket->write($data);
            }
        });
    }

    /** @return array{\Petrel\Socket\SocketServer, \Petrel\Coroutine\Coroutine} */
    private static function start(Server $server): array
    {
        $listener = listen('127.0.0.1:0');

        return [$listener, go($server->serve(...), $listener, 5.0)];
    }
}
