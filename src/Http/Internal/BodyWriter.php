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
 * chunks (framed for chunked encoding when asked). $progress runs after each piece, so the
 * connection can push its write deadline on.
 *
 * @internal
 */
final class BodyWriter
{
    private const FILE_PIECE = 262144;

    /**
     * @param \Closure(): void $progress
     * @throws SocketException if the socket fails or the file cannot be read
     */
    public static function write(Socket $socket, ResponseBody $body, bool $chunked, \Closure $progress): void
    {
        if ($body instanceof FileBody) {
            self::writeFile($socket, $body, $progress);
        } elseif ($body instanceof StreamBody) {
            foreach ($body->getChunks() as $chunk) {
                if ($chunk === '') {
                    continue;
                }
                $socket->write($chunked ? ResponseEncoder::chunk($chunk) : $chunk);
                $progress();
            }
            if ($chunked) {
                $socket->write(ResponseEncoder::lastChunk());
            }
        }
    }

    /** @param \Closure(): void $progress */
    private static function writeFile(Socket $socket, FileBody $body, \Closure $progress): void
    {
        $file = @\fopen($body->getPath(), 'rb');
        if ($file === false) {
            throw new SocketException("Cannot open {$body->getPath()} to send it");
        }
        try {
            \fseek($file, $body->getOffset());
            $left = $body->getLength();
            while ($left > 0) {
                $chunk = \fread($file, \min(self::FILE_PIECE, $left));
                if ($chunk === false || $chunk === '') {
                    throw new SocketException("{$body->getPath()} ended early while sending it");
                }
                $left -= \strlen($chunk);
                $socket->write($chunk);
                $progress();
            }
        } finally {
            \fclose($file);
        }
    }
}
