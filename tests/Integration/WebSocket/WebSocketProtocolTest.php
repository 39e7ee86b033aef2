<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\WebSocket;

use Petrel\Coroutine\Channel;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\WebSocket\WebSocket;
use Petrel\WebSocket\WebSocketOptions;

/** The server's connection against a hand-driven client: what goes on the wire. */
final class WebSocketProtocolTest extends AsyncTestCase
{
    private static function reportingHandler(Channel $report): \Closure
    {
        return static function (WebSocket $ws) use ($report): void {
            foreach ($ws as $message) {
                $ws->send($message);
            }
            $report->push([$ws->getCloseCode(), $ws->isClosedByPeer(), $ws->wasClean(), $ws->getCloseReason()]);
        };
    }

    public function testAnUnmaskedFrameIsAnsweredWithClose1002AndNoException(): void
    {
        $this->async(static function (): void {
            $report = new Channel(1);
            $fixture = TestServer::run(self::reportingHandler($report), static function (string $address) use ($report): void {
                $client = RawClient::connect($address);
                self::assertStringStartsWith('HTTP/1.1 101 ', $client->head);
                $client->socket->write("\x81\x02hi"); // unmasked
                self::assertSame([0x88, \pack('n', 1002) . 'Unmasked frame from a client'], $client->readFrame());
                self::assertNull($client->readFrame(), 'the server closes the connection after failing it');
                [$code, $byPeer, $clean] = $report->pop();
                self::assertSame([1002, false, false], [$code, $byPeer, $clean]);
                $client->socket->close();
            });
            self::assertSame([], $fixture->errors);
        });
    }

    public function testPingIsAnsweredWithTheSamePayloadAndAnUnsolicitedPongIgnored(): void
    {
        $this->async(static function (): void {
            $report = new Channel(1);
            TestServer::run(self::reportingHandler($report), static function (string $address) use ($report): void {
                $client = RawClient::connect($address);
                $client->send(0xA, 'unsolicited');
                $client->send(0x9, 'are you there');
                self::assertSame([0x8A, 'are you there'], $client->readFrame());
                // A ping between two fragments of a message; the echo comes whole after the pong.
                $client->send(0x1, 'frag', false);
                $client->send(0x9, 'mid');
                $client->send(0x0, 'mented');
                self::assertSame([0x8A, 'mid'], $client->readFrame());
                self::assertSame([0x81, 'fragmented'], $client->readFrame());
                $client->send(0x8, \pack('n', 1000) . 'ok');
                self::assertSame([0x88, \pack('n', 1000)], $client->readFrame());
                self::assertNull($client->readFrame());
                self::assertSame([1000, true, true, 'ok'], $report->pop());
                $client->socket->close();
            });
        });
    }

    public function testFramesSentWithTheHandshakeAreNotLost(): void
    {
        $this->async(static function (): void {
            $report = new Channel(1);
            TestServer::run(self::reportingHandler($report), static function (string $address) use ($report): void {
                $first = \Petrel\Tests\Unit\WebSocket\FrameHarness::clientFrame(1, 'early bird');
                $client = RawClient::connect($address, $first);
                self::assertSame([0x81, 'early bird'], $client->readFrame());
                $client->send(0x8, '');
                self::assertSame([0x88, ''], $client->readFrame());
                self::assertSame(1005, $report->pop()[0]);
                $client->socket->close();
            });
        });
    }

    public function testATooBigMessageIsRefusedWith1009(): void
    {
        $this->async(static function (): void {
            $report = new Channel(1);
            $options = (new WebSocketOptions())->withMaxMessageSize(1000);
            TestServer::run(self::reportingHandler($report), static function (string $address) use ($report): void {
                $client = RawClient::connect($address);
                $client->send(0x2, \str_repeat('x', 600), false);
                $client->send(0x0, \str_repeat('x', 600));
                $frame = $client->readFrame();
                self::assertSame(0x88, $frame[0] ?? null);
                self::assertSame(1009, \unpack('n', $frame[1] ?? '')[1] ?? null);
                self::assertSame(1009, $report->pop()[0]);
                $client->socket->close();
            }, $options);
        });
    }

    public function testAnIdlePeerIsPingedAndDroppedWhenItDoesNotAnswer(): void
    {
        $this->async(static function (): void {
            $report = new Channel(1);
            $options = (new WebSocketOptions())->withIdleTimeout(0.2);
            TestServer::run(self::reportingHandler($report), static function (string $address) use ($report): void {
                $answering = RawClient::connect($address);
                self::assertSame([0x89, ''], $answering->readFrame());
                $answering->send(0xA, '');
                self::assertSame([0x89, ''], $answering->readFrame(), 'pinged again after the next idle period');
                $answering->send(0x8, \pack('n', 1000));
                self::assertSame(0x88, $answering->readFrame()[0] ?? null);
                self::assertSame(1000, $report->pop()[0]);
                $answering->socket->close();

                $silent = RawClient::connect($address);
                self::assertSame([0x89, ''], $silent->readFrame());
                $frame = $silent->readFrame(); // no pong: the server gives up
                self::assertSame(0x88, $frame[0] ?? null);
                self::assertSame(1001, \unpack('n', $frame[1] ?? '')[1] ?? null);
                [$code, $byPeer] = $report->pop();
                self::assertSame([1001, false], [$code, $byPeer]);
                $silent->socket->close();
            }, $options);
        });
    }

    public function testCompressedMessagesFromARawClientAreInflated(): void
    {
        $this->async(static function (): void {
            $report = new Channel(1);
            TestServer::run(self::reportingHandler($report), static function (string $address) use ($report): void {
                $client = RawClient::connect($address, '', 'permessage-deflate; client_no_context_takeover; server_no_context_takeover');
                self::assertStringContainsString("Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_no_context_takeover\r\n", $client->head);
                $text = \str_repeat('compress me ', 100);
                $context = \deflate_init(\ZLIB_ENCODING_RAW);
                self::assertNotFalse($context);
                $compressed = \substr((string) \deflate_add($context, $text, \ZLIB_SYNC_FLUSH), 0, -4);
                $client->send(0x1, $compressed, true, 4);
                [$first, $payload] = $client->readFrame() ?? [0, ''];
                self::assertSame(0x80 | 0x40 | 0x1, $first, 'the echo is compressed: FIN, RSV1, text');
                $inflate = \inflate_init(\ZLIB_ENCODING_RAW);
                self::assertNotFalse($inflate);
                self::assertSame($text, \inflate_add($inflate, $payload . "\x00\x00\xff\xff", \ZLIB_SYNC_FLUSH));
                $client->send(0x8, \pack('n', 1000));
                $client->readFrame();
                self::assertSame(1000, $report->pop()[0]);
                $client->socket->close();
            });
        });
    }
}
