<?php

declare(strict_types=1);

namespace Petrel\Http\Psr\Internal;

use Petrel\Http\ResponseBody;
use Petrel\Http\StreamBody;
use Psr\Http\Message\StreamInterface;

/**
 * A PSR-7 view of a Petrel body (a string, a StreamBody's chunks, a spooled request
 * body), lazy: nothing is copied until a middleware reads, seeks or writes. Then the bytes
 * are pulled from the source as far as needed and kept in a php://temp buffer (in memory
 * up to 1 MiB, then on disk), so the stream is seekable and readable twice, even over a
 * generator that can be iterated once. Writes first pull the whole source in, then land
 * where the middleware seeked, as in a php://temp stream.
 *
 * replacesOriginal() tells whether the Petrel body it came from can still be sent as is:
 * not once it was written to, nor once a one-shot source (a generator) was started, since
 * the bytes pulled are then only here. toResponseBody() gives the body to send either way;
 * a rebuilt one streams the buffer and then the rest of the source, without buffering it.
 *
 * @internal
 */
final class BufferedBodyStream implements StreamInterface
{
    private const CHUNK = 65536;

    /** Up to this size a rebuilt body is a string (as in PsrConverter), above a StreamBody. */
    private const STRING_BODY = 1024 * 1024;

    /** @var resource|null the bytes pulled so far (and writes), opened on first use */
    private $buffer = null;

    private int $buffered = 0;

    /** @var \Iterator<mixed, string>|null the source, once started */
    private ?\Iterator $iterator = null;

    private bool $drained = false;

    private int $position = 0;

    private bool $written = false;

    private bool $detached = false;

    /**
     * @param string|iterable<string> $source
     * @param int|null $size the source's byte length, when known before it is read
     * @param bool $oneShot whether pulling from the source uses it up (a generator)
     * @param string|ResponseBody|null $original what toResponseBody() gives while it may;
     *        null when there is no Petrel body to give back (a request's spooled body)
     */
    private function __construct(
        private readonly string|iterable $source,
        private readonly ?int $size,
        private readonly bool $oneShot,
        private readonly string|ResponseBody|null $original,
    ) {
    }

    public static function ofString(string $body): self
    {
        return new self($body, \strlen($body), false, $body);
    }

    /**
     * A response body (PsrConverter gives a FileBody a FileBodyStream instead); one of
     * another ResponseBody kind reads as empty and is given back as it is.
     */
    public static function ofResponseBody(string|ResponseBody $body): self
    {
        if (\is_string($body)) {
            return self::ofString($body);
        }
        if ($body instanceof StreamBody) {
            $chunks = $body->getChunks();

            return new self($chunks, $body->getLength(), !\is_array($chunks), $body);
        }

        return new self('', 0, false, $body);
    }

    /**
     * A seekable stream shared with its owner (a spooled request body; Request rewinds it
     * before each use of its own): read from this view's offset each time, never closed.
     *
     * @param resource $stream
     */
    public static function ofSharedStream($stream): self
    {
        $size = \fstat($stream)['size'] ?? null;

        return new self(self::readFrom($stream), \is_int($size) ? $size : null, false, null);
    }

    /** Whether the original body no longer holds the bytes this stream has: see the class doc. */
    public function replacesOriginal(): bool
    {
        return $this->written || ($this->oneShot && $this->iterator !== null);
    }

    /**
     * The original body while replacesOriginal() is false; else these bytes: a string up
     * to 1 MiB once the source is all in, otherwise a StreamBody of the buffer and then the
     * rest of the source (the stream is used up by that: it is detached).
     */
    public function toResponseBody(): string|ResponseBody
    {
        if ($this->original !== null && !$this->replacesOriginal()) {
            return $this->original;
        }
        if ($this->detached) {
            return ''; // detached by the middleware: the bytes went with the resource
        }
        if ($this->size !== null && $this->size <= self::STRING_BODY) {
            $this->drain();
        } elseif ($this->iterator === null) {
            $this->pull(); // started, so that remainder() goes on from where it stands
        }
        $buffer = $this->buffer;
        if ($this->drained && $this->buffered <= self::STRING_BODY) {
            return $buffer === null ? '' : (string) \stream_get_contents($buffer, null, 0);
        }
        $this->buffer = null;
        $this->detached = true;

        return new StreamBody(self::remainder($buffer, $this->drained ? null : $this->iterator), $this->drained ? $this->buffered : $this->size);
    }

    public function __toString(): string
    {
        $this->rewind();

        return $this->getContents();
    }

    public function close(): void
    {
        if ($this->buffer !== null) {
            \fclose($this->buffer);
        }
        $this->buffer = null;
        $this->detached = true; // the iterator stays: replacesOriginal() still knows it was started
    }

    /** @return resource|null a php://temp stream with all the bytes, at this stream's position */
    public function detach()
    {
        if ($this->detached) {
            return null;
        }
        $this->drain();
        $buffer = $this->buffer();
        \fseek($buffer, $this->position);
        $this->buffer = null;
        $this->detached = true;

        return $buffer;
    }

    public function getSize(): ?int
    {
        if ($this->detached) {
            return null;
        }

        return $this->drained ? $this->buffered : $this->size;
    }

    public function tell(): int
    {
        $this->usable();

        return $this->position;
    }

    public function eof(): bool
    {
        return $this->detached || ($this->position >= $this->buffered && !$this->pull());
    }

    public function isSeekable(): bool
    {
        return !$this->detached;
    }

    public function seek(int $offset, int $whence = \SEEK_SET): void
    {
        $this->usable();
        if ($whence === \SEEK_END) {
            $this->drain();
        }
        $this->position = SeekTarget::of($offset, $whence, $this->position, $this->buffered);
    }

    public function rewind(): void
    {
        $this->seek(0);
    }

    public function isWritable(): bool
    {
        return !$this->detached;
    }

    public function write(string $string): int
    {
        $this->usable();
        $this->drain(); // written over the whole body, as the middleware sees it
        $buffer = $this->buffer();
        \fseek($buffer, $this->position);
        $written = \fwrite($buffer, $string);
        if ($written === false) {
            throw new \RuntimeException('Cannot write to the body buffer');
        }
        $this->position += $written;
        $this->buffered = \max($this->buffered, $this->position);
        $this->written = true;

        return $written;
    }

    public function isReadable(): bool
    {
        return !$this->detached;
    }

    public function read(int $length): string
    {
        $this->usable();
        while ($this->position + $length > $this->buffered && $this->pull()) {
            // $length bytes when the source has them, as a file gives them: a middleware
            // that sniffs the first bytes need not loop over a generator's chunking
        }
        $length = \min($length, $this->buffered - $this->position);
        if ($length < 1 || $this->buffer === null) {
            return '';
        }
        \fseek($this->buffer, $this->position);
        $bytes = (string) \fread($this->buffer, $length);
        $this->position += \strlen($bytes);

        return $bytes;
    }

    public function getContents(): string
    {
        $this->usable();
        $this->drain();
        if ($this->position >= $this->buffered || $this->buffer === null) {
            return '';
        }
        \fseek($this->buffer, $this->position);
        $contents = (string) \stream_get_contents($this->buffer);
        $this->position = $this->buffered;

        return $contents;
    }

    public function getMetadata(?string $key = null)
    {
        $metadata = $this->buffer === null ? [] : \stream_get_meta_data($this->buffer);

        return $key === null ? $metadata : ($metadata[$key] ?? null);
    }

    /** Appends the source's next chunk to the buffer; false once the source is used up. */
    private function pull(): bool
    {
        if ($this->drained) {
            return false;
        }
        if ($this->iterator === null) {
            $source = $this->source;
            $this->iterator = match (true) {
                \is_string($source) => new \ArrayIterator([$source]),
                \is_array($source) => new \ArrayIterator($source),
                $source instanceof \Iterator => $source,
                default => new \IteratorIterator($source),
            };
            $this->iterator->rewind();
        } else {
            $this->iterator->next();
        }
        while ($this->iterator->valid()) {
            $chunk = $this->iterator->current();
            if ($chunk !== '') {
                $buffer = $this->buffer();
                \fseek($buffer, $this->buffered);
                $this->buffered += (int) \fwrite($buffer, $chunk);

                return true;
            }
            $this->iterator->next();
        }
        $this->drained = true;

        return false;
    }

    private function drain(): void
    {
        while ($this->pull()) {
            // all of the source into the buffer
        }
    }

    /** @return resource */
    private function buffer()
    {
        return $this->buffer ??= \fopen('php://temp/maxmemory:1048576', 'w+b')
            ?: throw new \RuntimeException('Cannot create a temporary stream for a body');
    }

    private function usable(): void
    {
        if ($this->detached) {
            throw new \RuntimeException('The stream is detached');
        }
    }

    /**
     * The buffer's bytes, then the source's chunks not pulled yet (not buffered: they go
     * straight to the connection).
     *
     * @param resource|null $buffer
     * @param \Iterator<mixed, string>|null $rest
     * @return \Generator<int, string>
     */
    private static function remainder($buffer, ?\Iterator $rest): \Generator
    {
        if ($buffer !== null) {
            try {
                \rewind($buffer);
                while (($chunk = \fread($buffer, self::CHUNK)) !== false && $chunk !== '') {
                    yield $chunk;
                }
            } finally {
                \fclose($buffer);
            }
        }
        if ($rest === null) {
            return;
        }
        for ($rest->next(); $rest->valid(); $rest->next()) {
            yield $rest->current();
        }
    }

    /**
     * @param resource $stream
     * @return \Generator<int, string>
     */
    private static function readFrom($stream): \Generator
    {
        for ($offset = 0; ; $offset += \strlen($chunk)) {
            \fseek($stream, $offset);
            $chunk = \fread($stream, self::CHUNK);
            if ($chunk === false || $chunk === '') {
                return;
            }
            yield $chunk;
        }
    }

    public function __destruct()
    {
        if ($this->buffer !== null) {
            \fclose($this->buffer);
        }
    }
}
