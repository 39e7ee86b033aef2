<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\FileBody;
use Petrel\Http\ResponseBody;
use Petrel\Http\StreamBody;
use Petrel\Socket\Socket;
use Petrel\Socket\SocketException;

/**
 * Writes a response body that is not a string: a file's bytes in 256 KiB pieces, a stream's
 * chunks (framed for chunked encoding when asked). $writing(true) runs before each socket
 * write and $writing(false) after it, so the connection's write deadline covers the writes
 * only: a stream may wait as long as it likes for its next chunk (a long poll, server-sent
 * events), as a handler may for its response, while a peer that stops reading is still cut
 * off.
 *
 * @internal
 */
final class BodyWriter
{
    private const FILE_PIECE = 262144;

    /**
     * @param \Closure(bool): void $writing
     * @throws SocketException if the socket fails (the peer's doing: the connection closes quietly)
     * @throws \RuntimeException if a FileBody's file cannot be opened or ends before its
     *         length (it changed since the response was made: the connection logs it and closes)
     * @throws \LogicException if a StreamBody gives more or fewer bytes than its length;
     *         whatever a StreamBody's iterable throws passes through
     */
    public static function write(Socket $socket, ResponseBody $body, bool $chunked, \Closure $writing): void
    {
        if ($body instanceof FileBody) {
            self::writeFile($socket, $body, $writing);
        } elseif ($body instanceof StreamBody) {
            self::writeStream($socket, $body, $chunked, $writing);
        }
    }

    /**
     * A stream's chunks. One of a stated length must give exactly that many bytes: the head
     * said Content-Length, so a byte more would be read as the start of the next response
     * on a kept-alive connection, and a byte less would leave the client waiting for it.
     * The bytes past the length are not sent, and either way a \LogicException says so
     * (the connection logs it and closes).
     *
     * @param \Closure(bool): void $writing
     */
    private static function writeStream(Socket $socket, StreamBody $body, bool $chunked, \Closure $writing): void
    {
        $left = $chunked ? null : $body->getLength();
        $writing(false); // the head went out: the first chunk may take its time too
        foreach ($body->getChunks() as $chunk) {
            if ($chunk === '') {
                continue;
            }
            if ($left !== null) {
                if (\strlen($chunk) > $left) {
                    if ($left > 0) {
                        $writing(true);
                        $socket->write(\substr($chunk, 0, $left));
                    }
                    throw self::wrongLength($body, 'more');
                }
                $left -= \strlen($chunk);
            }
            $writing(true);
            $socket->write($chunked ? ResponseEncoder::chunk($chunk) : $chunk);
            $writing(false);
        }
        if ($left !== null && $left > 0) {
            throw self::wrongLength($body, 'fewer');
        }
        if ($chunked) {
            $writing(true);
            $socket->write(ResponseEncoder::lastChunk());
        }
    }

    private static function wrongLength(StreamBody $body, string $moreOrFewer): \LogicException
    {
        return new \LogicException(\sprintf(
            'A StreamBody of length %d gave %s bytes than that; the response was cut and its connection closed',
            $body->getLength(),
            $moreOrFewer,
        ));
    }

    /** @param \Closure(bool): void $writing */
    private static function writeFile(Socket $socket, FileBody $body, \Closure $writing): void
    {
        $file = @\fopen($body->getPath(), 'rb');
        if ($file === false) {
            throw new \RuntimeException("Cannot open {$body->getPath()} to send it: " . FopenFailure::reason() . '; the response was cut and its connection closed');
        }
        try {
            \fseek($file, $body->getOffset());
            $left = $body->getLength();
            while ($left > 0) {
                $chunk = \fread($file, \min(self::FILE_PIECE, $left));
                if ($chunk === false || $chunk === '') {
                    throw new \RuntimeException("{$body->getPath()} ended {$left} bytes early while it was sent (it changed after the response was made); the response was cut and its connection closed");
                }
                $left -= \strlen($chunk);
                $writing(true);
                $socket->write($chunk);
            }
        } finally {
            \fclose($file);
        }
    }
}
