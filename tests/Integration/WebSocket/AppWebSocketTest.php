<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\WebSocket;

use Petrel\Coroutine\Channel;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Http\Server;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\InProcessServer;
use Petrel\Tests\Support\RawHttp;
use Petrel\Web\App;
use Petrel\Web\Container\Container;
use Petrel\Web\Container\Scope;
use Petrel\WebSocket\HandshakeException;
use Petrel\WebSocket\WebSocket;
use Petrel\WebSocket\WebSocketClient;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\Socket\connect;

/** App::websocket() routes, served by the real HTTP server in-process on 127.0.0.1:0. */
#[CoversClass(App::class)]
final class AppWebSocketTest extends AsyncTestCase
{
    public function testAGlobalMiddlewareThatAnswers401PreventsTheUpgrade(): void
    {
        $ran = 0;
        $app = new App();
        $app->middleware(static function (Request $request, RequestHandler $next): Response {
            return $request->getHeader('authorization') === 'Bearer good'
                ? $next->handle($request->withAttribute('user', 'ada'))
                : Response::text("Unauthorized\n", 401);
        });
        $app->websocket('/chat', static function (WebSocket $ws, Request $request) use (&$ran): void {
            $ran++;
            $ws->send('hello ' . $request->getAttribute('user'));
        });
        $this->serve($app, function (string $address): void {
            $head = self::handshake($address, '/chat');
            self::assertStringStartsWith('HTTP/1.1 401', $head);
            try {
                WebSocketClient::connect("ws://{$address}/chat");
                self::fail('The handshake without credentials succeeded');
            } catch (HandshakeException $e) {
                self::assertStringContainsString('401', $e->getMessage());
            }
            $ws = WebSocketClient::connect("ws://{$address}/chat", ['Authorization' => 'Bearer good']);
            self::assertSame('hello ada', $ws->receive(5.0)?->data);
            self::assertNull($ws->receive(5.0));
            $ws->close();
        });
        self::assertSame(1, $ran);
    }

    public function testARouteMiddlewareAddsAHeaderToThe101(): void
    {
        $app = new App();
        $app->websocket('/echo', static function (WebSocket $ws): void {
            foreach ($ws as $message) {
                $ws->send($message);
            }
        })->middleware(static fn (Request $r, RequestHandler $next): Response => $next->handle($r)->withHeader('X-Route', 'added'));
        $this->serve($app, function (string $address): void {
            $head = self::handshake($address, '/echo');
            self::assertStringStartsWith('HTTP/1.1 101', $head);
            self::assertMatchesRegularExpression('/^X-Route: added\r$/mi', $head);
            self::assertMatchesRegularExpression('/^Sec-WebSocket-Accept: /mi', $head);
            $ws = WebSocketClient::connect("ws://{$address}/echo");
            $ws->send('ping?');
            self::assertSame('ping?', $ws->receive(5.0)?->data);
            $ws->close();
        });
    }

    public function testTheHandlerGetsItsArgumentsAndTheRequestScopeLastsUntilItReturns(): void
    {
        $disposed = new Channel(1);
        $container = new Container();
        $container->scoped(\ArrayObject::class, static fn () => new \ArrayObject(['built' => true]), static function () use ($disposed): void {
            $disposed->push('disposed');
        });
        $app = new App($container);
        $app->websocket('/rooms/{room}', static function (int $room, WebSocket $ws, \ArrayObject $bag, Request $request, App $self) use ($container): void {
            $again = $container->get(\ArrayObject::class); // throws if the scope had closed
            $ws->send(\json_encode([
                'room' => $room,
                'sameBag' => $again === $bag,
                'scopeOpen' => Scope::current()?->isClosed() === false,
                'path' => $request->getPath(),
                'app' => $self->container() === $container,
            ], \JSON_THROW_ON_ERROR));
            $ws->receive(); // until the client closes
        });
        $this->serve($app, function (string $address) use ($disposed): void {
            $ws = WebSocketClient::connect("ws://{$address}/rooms/42");
            $reply = \json_decode((string) $ws->receive(5.0)?->data, true, 4, \JSON_THROW_ON_ERROR);
            self::assertSame(['room' => 42, 'sameBag' => true, 'scopeOpen' => true, 'path' => '/rooms/42', 'app' => true], $reply);
            self::assertTrue($disposed->isEmpty(), 'The request scope closed while the WebSocket handler ran');
            $ws->close();
            self::assertSame('disposed', $disposed->pop(5.0));
        });
    }

    public function testAPlaceholderThatDoesNotCastIs404AndAPlainGetIs400(): void
    {
        $app = new App();
        $app->websocket('/rooms/{room}', static function (WebSocket $ws, int $room): void {
        });
        $this->serve($app, function (string $address): void {
            self::assertStringStartsWith('HTTP/1.1 404', self::handshake($address, '/rooms/abc'));
            self::assertSame(400, RawHttp::get($address, '/rooms/1')->status);
            self::assertSame(405, RawHttp::request($address, "POST /rooms/1 HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")->status);
        });
    }

    public function testAHandlerWithoutAWebSocketParameterIsAnError(): void
    {
        $this->expectException(\Petrel\Web\Routing\HandlerError::class);
        (new App())->websocket('/x', static function (Request $request): void {
        });
    }

    /** @param \Closure(string): void $test gets the server's address */
    private function serve(App $app, \Closure $test): void
    {
        $this->async(static function () use ($app, $test): void {
            InProcessServer::around(new Server($app), $test);
        });
    }

    /** Sends a WebSocket handshake for $path and returns the response head. */
    private static function handshake(string $address, string $path): string
    {
        $socket = connect($address);
        try {
            $key = \base64_encode(\random_bytes(16));
            $socket->write("GET {$path} HTTP/1.1\r\nHost: {$address}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                . "Sec-WebSocket-Key: {$key}\r\nSec-WebSocket-Version: 13\r\n\r\n");

            return (string) $socket->readLine("\r\n\r\n");
        } finally {
            $socket->close();
        }
    }
}
