<?php

declare(strict_types=1);

namespace Petrel\Symfony\Internal;

use Petrel\Http\FileBody;
use Petrel\Http\Response;
use Petrel\Http\StreamBody;
use Symfony\Component\HttpFoundation\BinaryFileResponse;
use Symfony\Component\HttpFoundation\Request as SymfonyRequest;
use Symfony\Component\HttpFoundation\Response as SymfonyResponse;
use Symfony\Component\HttpFoundation\StreamedResponse;

/**
 * Turns an HttpFoundation Response into a Petrel Response, with nothing of it left to run
 * once the kernel's request is over (the caller terminates and resets the kernel next):
 *
 * - a plain Response: its status, headers, cookies and content;
 * - a BinaryFileResponse: prepared for the request (Range → 206 with Content-Range, 416;
 *   HEAD), then sent by the connection as a FileBody of the chosen byte range; with
 *   deleteFileAfterSend() the file is opened, unlinked, and streamed from the open handle
 *   (and unlinked when no body is sent: HEAD, 304, 416);
 * - a StreamedResponse (and StreamedJsonResponse): its callback runs now, to completion,
 *   its output spooled to a temporary stream (memory up to 1 MiB, then a temp file), and
 *   sent with a Content-Length. So a stream that never ends (server-sent events) does not
 *   suit a kernel: use Petrel's own Response::stream() or a WebSocket for those.
 *
 * @internal
 */
final class ResponseFactory
{
    private const SPOOL_MEMORY = 1024 * 1024;
    private const CHUNK = 65536;

    public function create(SymfonyResponse $response, SymfonyRequest $request): Response
    {
        if ($response instanceof BinaryFileResponse) {
            $response->prepare($request); // idempotent; FrameworkBundle's ResponseListener did it already
            $body = self::fileBody($response);
        } elseif ($response instanceof StreamedResponse) {
            $body = self::spool($response);
        } else {
            $content = $response->getContent();
            $body = $content === false ? '' : $content;
        }
        $headers = [];
        foreach ($response->headers->allPreserveCaseWithoutCookies() as $name => $values) {
            $values = \array_values(\array_filter($values, static fn (?string $value): bool => $value !== null));
            if ($values !== []) {
                $headers[$name] = $values;
            }
        }
        foreach ($response->headers->getCookies() as $cookie) {
            $headers['Set-Cookie'][] = (string) $cookie;
        }

        return new Response($response->getStatusCode(), $headers, $body);
    }

    /** @return string|FileBody|StreamBody the prepared range of the file */
    private static function fileBody(BinaryFileResponse $response): string|FileBody|StreamBody
    {
        // What prepare() chose lives in protected properties, with no getters.
        [$offset, $maxLength, $delete, $temp] = (fn (): array => [
            (int) $this->offset,
            (int) $this->maxlen,
            (bool) $this->deleteFileAfterSend,
            $this->tempFileObject,
        ])->call($response);
        $path = $response->getFile()->getPathname();
        if (!$response->isSuccessful() || $maxLength === 0) {
            if ($delete && $temp === null && \is_file($path)) {
                @\unlink($path); // as sendContent() does: deleted after HEAD, 304 and 416 too
            }

            return '';
        }
        if ($temp !== null) {
            $temp->rewind();
            $temp->fseek($offset);
            $content = '';
            while (!$temp->eof() && ($maxLength < 0 || \strlen($content) < $maxLength)) {
                $content .= (string) $temp->fread(self::CHUNK);
            }

            return $maxLength < 0 ? $content : \substr($content, 0, $maxLength);
        }
        if (!$delete && \is_file($path)) {
            return new FileBody($path, $offset, $maxLength < 0 ? null : $maxLength);
        }
        $handle = \fopen($path, 'rb') ?: throw new \RuntimeException("Cannot open {$path}");
        $size = (int) (\fstat($handle)['size'] ?? 0);
        if ($delete) {
            @\unlink($path); // the open handle keeps the bytes until it is closed
        }
        $length = $maxLength < 0 ? \max(0, $size - $offset) : $maxLength;

        return new StreamBody(self::read($handle, $offset, $length), $length);
    }

    /** Runs the callback now; its output becomes the body (a string up to 1 MiB). */
    private static function spool(StreamedResponse $response): string|StreamBody
    {
        $spool = \fopen('php://temp/maxmemory:' . self::SPOOL_MEMORY, 'w+b') ?: throw new \RuntimeException('Cannot open php://temp');
        try {
            self::capture($response, $spool);
        } catch (\Throwable $error) {
            \fclose($spool);

            throw $error;
        }
        $size = (int) (\fstat($spool)['size'] ?? 0);
        \rewind($spool);
        if ($size <= self::SPOOL_MEMORY) {
            $content = (string) \stream_get_contents($spool);
            \fclose($spool);

            return $content;
        }

        return new StreamBody(self::read($spool, 0, $size), $size);
    }

    /**
     * Runs the callback with its output captured into $spool by an output buffer, and
     * leaves output buffering at the level it found.
     *
     * A callback that ends that buffer (the php-fpm idiom `while (ob_get_level() > 0)
     * ob_end_flush();`) sends the rest of its output to the worker's stdout: the client
     * would get a silently truncated 200, so that throws instead (a 500, logged). The
     * buffer stays removable: a non-removable one would turn that idiom into an endless
     * loop. Its handler sees its end (PHP_OUTPUT_HANDLER_FINAL) whoever asks: seen before
     * capture() ends it, the callback did, even if it started buffers again since.
     *
     * @param resource $spool
     */
    private static function capture(StreamedResponse $response, $spool): void
    {
        $level = \ob_get_level();
        $ended = false;
        \ob_start(static function (string $output, int $phase) use ($spool, &$ended): string {
            if (($phase & \PHP_OUTPUT_HANDLER_CLEAN) === 0) { // ob_clean() passes what it discards
                \fwrite($spool, $output);
            }
            if (($phase & \PHP_OUTPUT_HANDLER_FINAL) !== 0) {
                $ended = true;
            }

            return '';
        }, self::CHUNK);
        try {
            $response->sendContent();
        } finally {
            $lost = $ended; // before capture() ends it: the callback did
            while (\ob_get_level() > $level) {
                if ($lost) {
                    \ob_end_clean(); // the callback's own buffers: with the capture gone, flushing would print them
                } else {
                    \ob_end_flush();
                }
            }
        }
        if ($lost) {
            throw new \Error(
                'A StreamedResponse callback ended the output buffer that captures its output (ob_end_flush(), '
                . 'ob_end_clean() or ob_get_clean() on a buffer it did not start): what it printed afterwards went '
                . 'to the worker\'s stdout, not to the client. Use ob_flush()/flush(), do not end output buffers you '
                . 'did not start.',
            );
        }
    }

    /**
     * @param resource $handle closed when the generator ends or is destroyed
     * @return \Generator<int, string>
     */
    private static function read($handle, int $offset, int $length): \Generator
    {
        try {
            \fseek($handle, $offset);
            while ($length > 0 && !\feof($handle)) {
                $chunk = \fread($handle, \min(self::CHUNK, $length));
                if ($chunk === false || $chunk === '') {
                    break;
                }
                $length -= \strlen($chunk);
                yield $chunk;
            }
        } finally {
            \fclose($handle);
        }
    }
}
