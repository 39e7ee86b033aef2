<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Web;

use Petrel\Coroutine\Context;
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
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\go;
use function Petrel\sleep;

/** The App served by the real HTTP server, in-process on 127.0.0.1:0. */
#[CoversClass(App::class)]
final class AppServerTest extends AsyncTestCase
{
    /** @param \Closure(string): void $test gets the server's address */
    private function serve(App $app, \Closure $test): void
    {
        $this->async(static function () use ($app, $test): void {
            InProcessServer::around(new Server($app), $test);
        });
    }

    public function testConcurrentRequestsAreIsolated(): void
    {
        $inFlight = 0;
        $maxInFlight = 0;
        $container = new Container();
        $container->scoped(\ArrayObject::class, static fn () => new \ArrayObject());
        $app = new App($container);
        $app->middleware(static function (Request $request, RequestHandler $next) use (&$inFlight, &$maxInFlight): Response {
            $id = $request->getHeader('X-Id') ?? 'none';
            Context::set('request-id', $id);
            $maxInFlight = \max($maxInFlight, ++$inFlight);
            try {
                return $next->handle($request->withAttribute('id', $id));
            } finally {
                --$inFlight;
            }
        });
        $app->get('/work/{ms:\d+}', static function (int $ms, Request $request, \ArrayObject $bag): array {
            $bag['id'] = $request->getAttribute('id');
            sleep($ms / 1000);                         // other requests run meanwhile

            return [
                'attribute' => $request->getAttribute('id'),
                'context' => Context::get('request-id'),
                'scope' => Scope::current()?->get(Request::class)->getHeader('X-Id'),
                'scoped' => $bag['id'],
            ];
        });

        $this->serve($app, function (string $address) use (&$maxInFlight): void {
            $clients = [];
            for ($i = 0; $i < 20; $i++) {
                $clients[$i] = go(static fn () => RawHttp::get($address, '/work/' . (40 - $i), ['X-Id' => "req-{$i}"]));
            }
            foreach ($clients as $i => $client) {
                $response = $client->join();
                self::assertSame(200, $response->status, $response->body);
                $id = "req-{$i}";
                self::assertSame(['attribute' => $id, 'context' => $id, 'scope' => $id, 'scoped' => $id], \json_decode($response->body, true));
            }
            self::assertGreaterThan(1, $maxInFlight, 'the requests overlapped');
        });
    }

    public function testRoutingErrorsAndHeadOverTheWire(): void
    {
        $app = new App();
        $app->get('/hello/{name}', static fn (string $name) => "Hello, {$name}!");
        $app->post('/hello/{name}', static fn () => null);

        $this->serve($app, static function (string $address): void {
            $ok = RawHttp::get($address, '/hello/caf%C3%A9?x=1');
            self::assertSame(200, $ok->status);
            self::assertSame('Hello, café!', $ok->body);
            self::assertSame('text/html; charset=utf-8', $ok->header('content-type'));

            $socket = RawHttp::connect($address);
            $socket->write("HEAD /hello/x HTTP/1.1\r\nHost: t\r\n\r\nGET /hello/y HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
            $head = RawHttp::readResponse($socket, headRequest: true);
            $next = RawHttp::readResponse($socket);
            $socket->close();
            self::assertNotNull($head);
            self::assertSame(200, $head->status);
            self::assertSame('Hello, y!', $next?->body, 'no body was sent for HEAD: the next response follows at once');
            self::assertSame((string) \strlen('Hello, x!'), $head->header('content-length'));

            $notAllowed = RawHttp::request($address, "DELETE /hello/x HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
            self::assertSame(405, $notAllowed->status);
            self::assertSame('GET, HEAD, POST', $notAllowed->header('allow'));

            $missing = RawHttp::get($address, '/nope', ['Accept' => 'application/json']);
            self::assertSame(404, $missing->status);
            self::assertSame('{"error":{"status":404,"message":"Not Found"}}', $missing->body);

            self::assertSame(204, RawHttp::request($address, "POST /hello/x HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")->status);
            self::assertSame(400, RawHttp::get($address, '/hello/%FF')->status);
        });
    }
}
