<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\FileBody;
use Petrel\Http\Internal\BodyWriter;
use Petrel\Http\Internal\MemorySocket;
use Petrel\Http\StreamBody;
use Petrel\Socket\SocketException;
use PHPUnit\Framework\TestCase;

/** The bytes BodyWriter puts on the socket after a head, in memory. */
final class BodyWriterTest extends TestCase
{
    /** @param list<string> $chunks */
    private static function write(array $chunks, ?int $length, bool $chunked = false): MemorySocket
    {
        $socket = new MemorySocket();
        BodyWriter::write($socket, new StreamBody($chunks, $length), $chunked, static function (bool $writing): void {
        });

        return $socket;
    }

    public function testAStreamOfItsStatedLengthIsSentAsIs(): void
    {
        self::assertSame('hello world', self::write(['hello', '', ' world'], 11)->written());
        self::assertSame("5\r\nhello\r\n0\r\n\r\n", self::write(['hello'], null, chunked: true)->written());
        self::assertSame('hello', self::write(['hello'], null)->written(), 'HTTP/1.0: delimited by the close');
    }

    public function testAStreamLongerThanItsLengthSendsNoByteMoreAndFails(): void
    {
        // A byte past Content-Length would start the next response on a kept-alive connection.
        $socket = new MemorySocket();
        try {
            BodyWriter::write($socket, new StreamBody(['hel', 'lo world', 'more'], 5), false, static function (bool $writing): void {
            });
            self::fail('no exception');
        } catch (\LogicException $e) {
            self::assertStringContainsString('length 5 gave more bytes', $e->getMessage());
        }
        self::assertSame('hello', $socket->written());
    }

    /**
     * A file gone before its bytes were sent was a SocketException, which the connection
     * takes for the peer's failure and closes on without a word; it is the server's now.
     */
    public function testAFileGoneSinceItsResponseWasMadeIsTheServersErrorNotTheSockets(): void
    {
        $file = \tempnam(\sys_get_temp_dir(), 'petrel-gone-');
        \file_put_contents($file, 'hello');
        $body = new FileBody($file);
        \unlink($file);
        try {
            BodyWriter::write(new MemorySocket(), $body, false, static function (bool $writing): void {
            });
            self::fail('no exception');
        } catch (SocketException $e) {
            self::fail("a socket's failure: {$e->getMessage()}");
        } catch (\RuntimeException $e) {
            self::assertSame("Cannot open {$file} to send it: No such file or directory; the response was cut and its connection closed", $e->getMessage());
        }
    }

    public function testAStreamShorterThanItsLengthFails(): void
    {
        // The client would wait for the missing bytes: the connection must close instead.
        $this->expectException(\LogicException::class);
        $this->expectExceptionMessage('length 5 gave fewer bytes');
        self::write(['hi'], 5);
    }
}
