<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\WebSocket;

use Petrel\Coroutine\Channel;
use Petrel\Coroutine\Coroutine;
use Petrel\Coroutine\TimeoutException;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\WebSocket\ClosedException;
use Petrel\WebSocket\Internal\FrameParser;
use Petrel\WebSocket\Internal\Inflater;
use Petrel\WebSocket\Internal\ProtocolException;
use Petrel\WebSocket\Message;
use Petrel\WebSocket\WebSocket;

use function Petrel\go;
use function Petrel\timeout;

/**
 * permessage-deflate with context takeover (RFC 7692 §7.2.3.2): every compressed message
 * may refer back to the ones compressed before it, so the peer must get all of them. A
 * send() cut short by a deadline before any byte of it went out leaves the connection
 * open; the message must not linger in the compressor's context.
 */
final class WebSocketUnsentCompressedTest extends AsyncTestCase
{
    private const TEXT = 'The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog again.';

    public function testAMessageWhoseSendTimedOutBeforeItWentOutIsNotReferredToLater(): void
    {
        $this->async(static function (): void {
            $reading = new Channel(1);
            $handler = static function (WebSocket $ws) use ($reading): void {
                $blocked = self::blockTheSocket($ws);
                try {
                    timeout(0.05, static fn () => $ws->sendText(self::TEXT)); // waits its turn, then gives up
                    self::fail('The message went out although the socket was busy');
                } catch (TimeoutException) {
                }
                self::assertFalse($ws->isClosed(), 'nothing of it went out: the connection stays open');
                $reading->push(true);
                $blocked->join();
                $ws->sendText(self::TEXT); // compressed: it must not refer back to the one not sent
                \iterator_count($ws);
            };
            $fixture = TestServer::run($handler, static function (string $address) use ($reading): void {
                $client = RawClient::connect($address, '', 'permessage-deflate');
                self::assertStringContainsStringIgnoringCase('Sec-WebSocket-Extensions: permessage-deflate', $client->head);
                $reading->pop();
                $texts = self::readTexts($client, 1);
                $client->send(0x8, \pack('n', 1000));
                $client->socket->close();
                self::assertSame([self::TEXT], $texts);
            });
            self::assertSame([], $fixture->errors, 'the server logged errors');
        });
    }

    /**
     * When a later compressed message already waits behind the one that timed out, it refers
     * back to it and cannot be sent as it is: the connection is dropped (1006) rather than
     * have the peer inflate garbage.
     */
    public function testALaterCompressedMessageQueuedBehindOneThatTimedOutDropsTheConnection(): void
    {
        $this->async(static function (): void {
            $reading = new Channel(1);
            $ended = new Channel(1);
            $handler = static function (WebSocket $ws) use ($reading, $ended): void {
                $blocked = self::blockTheSocket($ws);
                $timedOut = go(static function () use ($ws): bool {
                    try {
                        timeout(0.05, static fn () => $ws->sendText(self::TEXT));
                    } catch (TimeoutException) {
                        return true;
                    }

                    return false;
                });
                $later = go(static function () use ($ws): void {
                    try {
                        $ws->sendText(self::TEXT . ' And once more.');
                    } catch (ClosedException) {
                    }
                });
                self::assertTrue($timedOut->join());
                $reading->push(true);
                try {
                    $blocked->join();
                } catch (ClosedException) {
                }
                $later->join();
                $ended->push([$ws->getCloseCode(), $ws->getCloseReason()]);
                \iterator_count($ws);
            };
            $fixture = TestServer::run($handler, static function (string $address) use ($reading, $ended): void {
                $client = RawClient::connect($address, '', 'permessage-deflate');
                $reading->pop();
                $texts = self::readTexts($client, 1);
                $client->socket->close();
                self::assertSame([], $texts, 'the later message reached the peer, compressed against one it never got');
                [$code, $reason] = $ended->pop();
                self::assertSame(1006, $code);
                self::assertStringContainsString('was not sent', $reason);
            });
            self::assertSame([], $fixture->errors, 'the server logged errors');
        });
    }

    /**
     * Starts incompressible binary messages, each in a coroutine of its own, until one waits
     * for the socket (the client does not read yet): later sends queue behind it.
     */
    private static function blockTheSocket(WebSocket $ws): Coroutine
    {
        do {
            $sender = go(static fn () => $ws->sendBinary(\random_bytes(1 << 20)));
        } while ($sender->isFinished());

        return $sender;
    }

    /**
     * Reads as a correct client does (FrameParser, inflating with context takeover) until
     * $count text messages came or the connection ended; binary messages are skipped.
     *
     * @return list<string> the texts
     */
    private static function readTexts(RawClient $client, int $count): array
    {
        $parser = new FrameParser(false, 1 << 26, 1 << 26, new Inflater(false));
        $texts = [];
        try {
            while (\count($texts) < $count && ($bytes = $client->socket->read()) !== null) {
                $parser->feed($bytes);
                while (($event = $parser->next()) !== null) {
                    if ($event instanceof Message && $event->isText()) {
                        $texts[] = $event->data;
                    }
                }
            }
        } catch (ProtocolException $e) {
            self::fail("The client failed the connection: {$e->closeCode} {$e->getMessage()}");
        } catch (\Petrel\Socket\SocketException) {
            // dropped by the server
        }

        return $texts;
    }
}
