<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Socket;

use Petrel\Socket\SocketException;
use Petrel\Socket\StreamSocket;
use Petrel\Tests\Support\AsyncTestCase;

/** readLine()'s $maxBytes counts the whole line, delimiter included, however it arrives. */
final class ReadLineLimitTest extends AsyncTestCase
{
    /**
     * The limit was checked only while no delimiter had come, so a long line that arrived
     * in one read with its delimiter was returned whole (5,001 bytes under a limit of 100).
     */
    public function testALongLineThatArrivesWithItsDelimiterIsRefused(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $b->write("short\n" . \str_repeat('x', 5000) . "\nafter\n");
            self::assertSame("short\n", $a->readLine("\n", 100));
            $this->assertTooLong(static fn () => $a->readLine("\n", 100), 100);
            $a->close();
            $b->close();
        });
    }

    public function testTheDelimiterCountsTowardsTheLimit(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $b->write("abc\r\nabcd\r\n");
            self::assertSame("abc\r\n", $a->readLine("\r\n", 5));
            $this->assertTooLong(static fn () => $a->readLine("\r\n", 5), 5);
            self::assertSame("abcd\r\n", $a->readLine("\r\n", 6));
            $b->end("tail");
            self::assertSame('tail', $a->readLine("\r\n", 5), 'at EOF, the rest within the limit');
            $a->close();
            $b->close();
        });
    }

    private function assertTooLong(\Closure $readLine, int $maxBytes): void
    {
        try {
            $line = $readLine();
            self::fail(\sprintf('readLine(maxBytes: %d) returned %d bytes', $maxBytes, \strlen((string) $line)));
        } catch (SocketException $e) {
            self::assertStringContainsString("No line delimiter within {$maxBytes} bytes", $e->getMessage());
        }
    }

    /** @return array{StreamSocket, StreamSocket} */
    private static function pair(): array
    {
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertNotFalse($pair);

        return [new StreamSocket($pair[0], 'a'), new StreamSocket($pair[1], 'b')];
    }
}
