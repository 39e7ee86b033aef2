<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\WebSocket;

use Petrel\Coroutine\Channel;
use Petrel\Http\Request;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\RawHttp;
use Petrel\WebSocket\ClosedException;
use Petrel\WebSocket\HandshakeException;
use Petrel\WebSocket\Message;
use Petrel\WebSocket\WebSocket;
use Petrel\WebSocket\WebSocketClient;
use Petrel\WebSocket\WebSocketOptions;
use Petrel\WebSocket\WebSocketServer;

use function Petrel\go;

/** The server glue and the client over real sockets, in-process with Petrel\Http\Server. */
final class WebSocketServerTest extends AsyncTestCase
{
    public function testEchoesTextAndBinaryCompressedBothWays(): void
    {
        $this->async(static function (): void {
            $seen = new Channel(1);
            $echo = static function (WebSocket $ws) use ($seen): void {
                $seen->push($ws->isCompressed());
                foreach ($ws as $message) {
                    $ws->send($message);
                }
            };
            TestServer::run($echo, static function (string $address) use ($seen): void {
                $ws = WebSocketClient::connect("ws://{$address}/echo");
                self::assertTrue($ws->isCompressed());
                self::assertTrue($seen->pop());
                $big = \str_repeat('κόσμε ', 200_000);
                $random = \random_bytes(300_000);
                foreach ([new Message('hello'), new Message(''), new Message($big), new Message($random, true), new Message("\x00\xFF", true)] as $message) {
                    $ws->send($message);
                    $back = $ws->receive();
                    self::assertNotNull($back);
                    self::assertSame($message->binary, $back->binary);
                    self::assertSame($message->data, $back->data);
                }
                $ws->close();
                self::assertSame(1000, $ws->getCloseCode());
                self::assertFalse($ws->isClosedByPeer());
                self::assertTrue($ws->wasClean());
                self::assertNull($ws->receive());
            });
        });
    }

    public function testTheServerKnowsTheClientClosedAndWhy(): void
    {
        $this->async(static function (): void {
            $closed = new Channel(1);
            $handler = static function (WebSocket $ws) use ($closed): void {
                self::assertNull($ws->receive());
                $closed->push([$ws->getCloseCode(), $ws->getCloseReason(), $ws->isClosedByPeer(), $ws->wasClean()]);
            };
            TestServer::run($handler, static function (string $address) use ($closed): void {
                $ws = WebSocketClient::connect("ws://{$address}/");
                $ws->close(4001, 'bye now');
                self::assertSame([4001, 'bye now', true, true], $closed->pop());
                self::assertTrue($ws->wasClean());
            });
        });
    }

    public function testAGracefulStopClosesOpenWebSocketsWith1001(): void
    {
        $this->async(static function (): void {
            $handlerSaw = new Channel(1);
            $listener = \Petrel\Socket\listen('127.0.0.1:0');
            $server = new \Petrel\Http\Server(new \Petrel\Http\ClosureHandler(
                static fn (Request $request) => WebSocketServer::upgrade($request, static function (WebSocket $ws) use ($handlerSaw): void {
                    foreach ($ws as $message) {
                        $ws->send($message);
                    }
                    $handlerSaw->push([$ws->getCloseCode(), $ws->isClosedByPeer()]);
                }),
            ));
            $serving = go($server->serve(...), $listener, 30.0);
            $ws = WebSocketClient::connect("ws://{$listener->getAddress()}/");
            $ws->send('still here');
            self::assertSame('still here', $ws->receive()?->data);

            $server->stop();
            self::assertNull($ws->receive(), 'the server closed the connection');
            self::assertSame(1001, $ws->getCloseCode());
            self::assertSame('Server stopping', $ws->getCloseReason());
            self::assertTrue($ws->wasClean(), 'a close handshake, not the abort at the end of the drain timeout');
            self::assertSame([1001, false], $handlerSaw->pop(), "the handler's loop ended");
            $serving->join(); // returns without waiting out the 30 s drain timeout
        });
    }

    public function testTheClientKnowsTheServerClosedAndWhy(): void
    {
        $this->async(static function (): void {
            $handler = static function (WebSocket $ws): void {
                $ws->send('last words');
                $ws->close(4000, 'done');
            };
            TestServer::run($handler, static function (string $address): void {
                $ws = WebSocketClient::connect("ws://{$address}/");
                self::assertSame('last words', $ws->receive()?->data);
                self::assertNull($ws->receive());
                self::assertSame(4000, $ws->getCloseCode());
                self::assertSame('done', $ws->getCloseReason());
                self::assertTrue($ws->isClosedByPeer());
                self::assertTrue($ws->wasClean());
                $ws->close(); // no-op: already closed
                try {
                    $ws->send('too late');
                    self::fail('sent on a closed WebSocket');
                } catch (ClosedException) {
                    self::assertTrue($ws->isClosed());
                }
            });
        });
    }

    /**
     * A peer that stops reading while the server sends: its send buffer fills, the server's
     * ping for idleness and its close frame queue behind the data. They wait at most the
     * close timeout; then the connection is dropped (1006) and the sender learns it, not
     * held for as long as the peer stays silent.
     */
    public function testAPeerThatStopsReadingIsDroppedAfterTheIdleAndCloseTimeouts(): void
    {
        $this->async(static function (): void {
            $ended = new Channel(1);
            $handler = static function (WebSocket $ws) use ($ended): void {
                $chunk = \str_repeat('x', 256 * 1024);
                try {
                    while (true) {
                        $ws->sendBinary($chunk);
                    }
                } catch (ClosedException) {
                }
                $ended->push([$ws->getCloseCode(), $ws->getCloseReason()]);
            };
            $options = new WebSocketOptions(idleTimeout: 0.3, closeTimeout: 0.3);
            TestServer::run($handler, static function (string $address) use ($ended): void {
                $client = RawClient::connect($address); // handshakes, then never reads
                $started = \hrtime(true);
                [$code, $reason] = $ended->pop(5.0);
                self::assertSame(1006, $code);
                self::assertStringContainsString('The peer stopped reading', $reason);
                self::assertLessThan(3.0, (\hrtime(true) - $started) / 1e9);
                $client->socket->close();
            }, $options);
        });
    }

    /**
     * A ClosedException is how a handler learns its own peer has gone: the connection ends
     * quietly. One from another connection (a broadcast to a peer that has just left,
     * unguarded) is a bug in the handler like any other: its connection closes with 1011 and
     * the exception goes to the log, not a clean 1000 with nothing said.
     */
    public function testAClosedExceptionFromAnotherConnectionIsTheHandlersFailure(): void
    {
        $this->async(static function (): void {
            $first = new Channel(1);
            $handler = static function (WebSocket $ws) use ($first): void {
                $message = $ws->receive();
                if ($message?->data === 'first') {
                    $first->push($ws);
                    $ws->receive(); // until the peer closes

                    return;
                }
                $other = $first->pop();
                self::assertInstanceOf(WebSocket::class, $other);
                while (!$other->isClosed()) {
                    \Petrel\sleep(0.01);
                }
                $other->send('you left'); // throws: the other peer is gone
            };
            $fixture = TestServer::run($handler, static function (string $address): void {
                $a = WebSocketClient::connect("ws://{$address}/");
                $a->send('first');
                $b = WebSocketClient::connect("ws://{$address}/");
                $b->send('second');
                $a->close();
                self::assertNull($b->receive());
                self::assertSame(1011, $b->getCloseCode(), 'the handler failed');
            });
            self::assertCount(1, $fixture->errors);
            self::assertStringStartsWith(ClosedException::class . ': The WebSocket is closed (1000', $fixture->errors[0]);
        });
    }

    public function testConcurrentSendersNeverInterleaveFrames(): void
    {
        $this->async(static function (): void {
            $handler = static function (WebSocket $ws): void {
                $senders = [];
                for ($s = 0; $s < 4; $s++) {
                    $senders[] = go(static function () use ($ws, $s): void {
                        for ($i = 0; $i < 50; $i++) {
                            $ws->sendBinary(\str_repeat(\chr(65 + $s), 1 + ($i * 7919 % 200_000)));
                        }
                    });
                }
                foreach ($senders as $sender) {
                    $sender->join();
                }
                self::assertSame('done?', $ws->receive()?->data);
            };
            $options = (new WebSocketOptions())->withOutgoingFrameSize(16_384);
            TestServer::run($handler, static function (string $address): void {
                $ws = WebSocketClient::connect("ws://{$address}/");
                $counts = [];
                for ($n = 0; $n < 200; $n++) {
                    $message = $ws->receive();
                    self::assertNotNull($message);
                    $char = $message->data[0];
                    self::assertSame(\str_repeat($char, \strlen($message->data)), $message->data, 'frames of two messages interleaved');
                    $counts[$char] = ($counts[$char] ?? 0) + 1;
                }
                \ksort($counts);
                self::assertSame(['A' => 50, 'B' => 50, 'C' => 50, 'D' => 50], $counts);
                $ws->send('done?');
                self::assertNull($ws->receive());
                self::assertSame(1000, $ws->getCloseCode());
            }, $options);
        });
    }

    public function testSubprotocolIsChosenByServerPreference(): void
    {
        $this->async(static function (): void {
            $handler = static function (WebSocket $ws): void {
                $ws->send((string) $ws->getSubprotocol());
            };
            $serverOptions = (new WebSocketOptions())->withSubprotocols(['v2.chat', 'v1.chat']);
            TestServer::run($handler, static function (string $address): void {
                $ws = WebSocketClient::connect("ws://{$address}/", [], (new WebSocketOptions())->withSubprotocols(['v1.chat', 'v2.chat']));
                self::assertSame('v2.chat', $ws->getSubprotocol());
                self::assertSame('v2.chat', $ws->receive()?->data);
                $ws->close();
            }, $serverOptions);
        });
    }

    public function testABadHandshakeGets400AndAnotherVersion426(): void
    {
        $this->async(static function (): void {
            $handler = static function (WebSocket $ws): void {
            };
            TestServer::run($handler, static function (string $address): void {
                $key = \base64_encode(\random_bytes(16));
                $good = ['Upgrade' => 'WebSocket', 'Connection' => 'keep-alive, Upgrade', 'Sec-WebSocket-Key' => $key, 'Sec-WebSocket-Version' => '13'];
                self::assertSame(400, RawHttp::get($address, '/', ['Upgrade' => 'websocket'] + \array_diff_key($good, ['Upgrade' => 1, 'Connection' => 1]))->status);
                self::assertSame(400, RawHttp::get($address, '/', ['Sec-WebSocket-Key' => 'c2hvcnQ='] + $good)->status);
                self::assertSame(400, RawHttp::get($address, '/', \array_diff_key($good, ['Sec-WebSocket-Version' => 1]))->status);
                $old = RawHttp::get($address, '/', ['Sec-WebSocket-Version' => '8'] + $good);
                self::assertSame(426, $old->status);
                self::assertSame('13', $old->header('sec-websocket-version'));
                $post = RawHttp::request($address, "POST / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    . "Sec-WebSocket-Key: {$key}\r\nSec-WebSocket-Version: 13\r\nContent-Length: 0\r\n\r\n");
                self::assertSame(400, $post->status);
            });
        });
    }

    /**
     * A browser sends the site's cookies with a WebSocket opened by any page: a page of
     * another origin is refused (403) unless allowed; the server's own origin and clients
     * that send no Origin (not browsers) are let in.
     */
    public function testAPageOfAnotherOriginGets403UnlessAllowed(): void
    {
        $this->async(static function (): void {
            $handler = static function (WebSocket $ws): void {
                $ws->send('in');
            };
            $opens = static function (string $address, ?string $origin): bool {
                try {
                    $ws = WebSocketClient::connect("ws://{$address}/", $origin === null ? [] : ['Origin' => $origin]);
                } catch (HandshakeException $refused) {
                    self::assertStringContainsString('403', $refused->getMessage());

                    return false;
                }
                self::assertSame('in', $ws->receive()?->data);
                $ws->close();

                return true;
            };
            TestServer::run($handler, static function (string $address) use ($opens): void {
                self::assertTrue($opens($address, null), 'no Origin: not a browser');
                self::assertTrue($opens($address, "http://{$address}"), 'the same origin');
                self::assertTrue($opens($address, 'HTTPS://' . \strtoupper($address)), 'the same host, any case and scheme (TLS may end at a proxy)');
                self::assertTrue($opens($address, 'http://127.0.0.1:3000'), 'and any port (a dev server\'s page; cookies ignore ports too)');
                self::assertFalse($opens($address, 'http://127.0.0.10'));
                self::assertFalse($opens($address, 'https://evil.example'));
                self::assertFalse($opens($address, 'null'), 'a sandboxed page or a file');
                $refused = RawHttp::get($address, '/', ['Upgrade' => 'websocket', 'Connection' => 'Upgrade', 'Origin' => 'https://evil.example',
                    'Sec-WebSocket-Key' => \base64_encode(\random_bytes(16)), 'Sec-WebSocket-Version' => '13']);
                self::assertSame(403, $refused->status);
                self::assertStringContainsString('https://evil.example is not allowed', $refused->body);
            });
            TestServer::run($handler, static function (string $address) use ($opens): void {
                self::assertTrue($opens($address, 'https://app.example'));
                self::assertFalse($opens($address, 'https://evil.example'));
                self::assertTrue($opens($address, "http://{$address}"));
            }, (new WebSocketOptions())->withAllowedOrigins('https://app.example'));
            TestServer::run($handler, static function (string $address) use ($opens): void {
                self::assertTrue($opens($address, 'https://evil.example'), '"*": any');
            }, (new WebSocketOptions())->withAllowedOrigins('*'));
        });
    }

    public function testAnAllowedOriginIsAnOriginNotAUrl(): void
    {
        $this->expectExceptionMessage('Invalid allowed origin "https://app.example/": scheme://host[:port], without a path, or "*"');
        (new WebSocketOptions())->withAllowedOrigins('https://app.example/');
    }

    public function testAHandlerExceptionClosesWith1011AndIsLogged(): void
    {
        $this->async(static function (): void {
            $handler = static function (WebSocket $ws, Request $request): void {
                throw new \RuntimeException('boom in ' . $request->getPath());
            };
            $fixture = TestServer::run($handler, static function (string $address): void {
                $ws = WebSocketClient::connect("ws://{$address}/x");
                self::assertNull($ws->receive());
                self::assertSame(1011, $ws->getCloseCode());
            });
            self::assertSame(['RuntimeException: boom in /x'], $fixture->errors);
        });
    }

    public function testIsUpgradeRequest(): void
    {
        self::assertTrue(WebSocketServer::isUpgradeRequest(Request::create('GET', '/', ['Upgrade' => 'WebSocket'])));
        self::assertFalse(WebSocketServer::isUpgradeRequest(Request::create('GET', '/')));
    }
}
