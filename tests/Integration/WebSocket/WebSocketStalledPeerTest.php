<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\WebSocket;

use Petrel\Coroutine\Channel;
use Petrel\Coroutine\TimeoutException;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\WebSocket\ClosedException;
use Petrel\WebSocket\WebSocket;
use Petrel\WebSocket\WebSocketOptions;

use function Petrel\go;

/**
 * Peers that stop reading while the server is stuck sending to them: however the server's
 * reader is occupied (delivering a message the handler has not taken, failing the
 * connection for a protocol violation), the connection is dropped within the idle and
 * close timeouts, instead of being held for as long as the peer likes.
 */
final class WebSocketStalledPeerTest extends AsyncTestCase
{
    /**
     * An echo handler and a peer that sends without ever reading: the handler waits in
     * send() behind a full send buffer, the reader waits for the handler to take the next
     * message. The reader's wait still pings the peer, and the ping that cannot go out
     * within the close timeout drops the connection.
     */
    public function testAPeerThatSendsButNeverReadsIsDroppedWhileItsMessagesWait(): void
    {
        $this->async(static function (): void {
            $ended = new Channel(1);
            $echo = static function (WebSocket $ws) use ($ended): void {
                try {
                    foreach ($ws as $message) {
                        $ws->send($message);
                    }
                } catch (ClosedException) {
                }
                $ended->push([$ws->getCloseCode(), $ws->getCloseReason()]);
            };
            $options = new WebSocketOptions(compression: false, idleTimeout: 0.3, closeTimeout: 0.3);
            $fixture = TestServer::run($echo, static function (string $address) use ($ended): void {
                $client = RawClient::connect($address);
                // Sends until its own socket blocks for good (both sides' buffers full), never reads.
                $flood = go(static function () use ($client): void {
                    $chunk = \str_repeat('x', 65536);
                    try {
                        while (true) {
                            $client->send(0x2, $chunk);
                        }
                    } catch (\Throwable) {
                        // the server dropped us, or we closed the socket below
                    }
                });
                try {
                    [$code, $reason] = $ended->pop(5.0);
                } catch (TimeoutException) {
                    self::fail('The connection of a peer that neither reads nor lets the server read is held for ever');
                } finally {
                    $client->socket->close();
                    $flood->join();
                }
                self::assertSame(1006, $code);
                self::assertStringContainsString('The peer stopped reading', $reason);
            }, $options);
            self::assertSame([], $fixture->errors, 'the server logged errors');
        });
    }

    /**
     * A peer that stops reading while the server sends, then breaks the protocol (an
     * unmasked frame): the close frame 1002 cannot go out behind the data, and waits at
     * most the close timeout, like any control frame; then the connection is dropped.
     */
    public function testAViolationByAPeerThatStopsReadingEndsTheConnectionAfterTheCloseTimeout(): void
    {
        $this->async(static function (): void {
            $ended = new Channel(1);
            $progress = Channel::unbounded();
            $handler = static function (WebSocket $ws) use ($ended, $progress): void {
                $reading = go(static fn () => \iterator_count($ws)); // messages taken apart, as documented
                $chunk = \str_repeat('x', 256 * 1024);
                try {
                    while (true) {
                        $ws->sendBinary($chunk);
                        $progress->push(true);
                    }
                } catch (ClosedException) {
                }
                $reading->join();
                $ended->push([$ws->getCloseCode(), $ws->getCloseReason()]);
            };
            // No idle timeout: nothing else would end the wait.
            $options = new WebSocketOptions(compression: false, idleTimeout: null, closeTimeout: 0.3);
            $fixture = TestServer::run($handler, static function (string $address) use ($ended, $progress): void {
                $client = RawClient::connect($address); // never reads
                try {
                    while (true) {
                        $progress->pop(0.5); // until the server's sending stalls: the buffers are full
                    }
                } catch (TimeoutException) {
                }
                $client->socket->write("\x82\x01x"); // unmasked: the server must fail the connection
                try {
                    [$code, $reason] = $ended->pop(5.0);
                } catch (TimeoutException) {
                    self::fail('The close frame for a protocol violation waited for ever behind the data');
                } finally {
                    $client->socket->close();
                }
                self::assertSame(1002, $code);
                self::assertSame('Unmasked frame from a client', $reason);
            }, $options);
            self::assertSame([], $fixture->errors, 'the server logged errors');
        });
    }
}
