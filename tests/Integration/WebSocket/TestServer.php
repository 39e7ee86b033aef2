<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\WebSocket;

use Closure;
use Petrel\Http\ClosureHandler;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\Server;
use Petrel\WebSocket\WebSocket;
use Petrel\WebSocket\WebSocketOptions;
use Petrel\WebSocket\WebSocketServer;

use function Petrel\go;
use function Petrel\Socket\listen;

/**
 * A Petrel HTTP server on 127.0.0.1:0 whose handler upgrades every request to WebSocket
 * and runs $handler; run in a coroutine, stopped (and its connections drained) after $test.
 */
final class TestServer
{
    /** @var list<string> errors the server logged */
    public array $errors = [];

    /**
     * @param Closure(WebSocket, Request): void $handler
     * @param Closure(string, self): void $test receives "127.0.0.1:port"
     */
    public static function run(Closure $handler, Closure $test, ?WebSocketOptions $options = null): self
    {
        $fixture = new self();
        $listener = listen('127.0.0.1:0');
        $server = new Server(new ClosureHandler(
            static fn (Request $request): Response => WebSocketServer::upgrade($request, $handler, $options),
        ));
        $server->setErrorLogger(static function (\Throwable $error) use ($fixture): void {
            $fixture->errors[] = $error::class . ': ' . $error->getMessage();
        });
        $serving = go($server->serve(...), $listener, 5.0);
        try {
            $test($listener->getAddress(), $fixture);
        } finally {
            $server->stop();
            $serving->join();
        }

        return $fixture;
    }
}
