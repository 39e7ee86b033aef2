<?php

declare(strict_types=1);

namespace Petrel\Http\Psr\Internal;

use Petrel\Http\FileBody;
use Psr\Http\Message\StreamInterface;

/**
 * A PSR-7 view of a FileBody: its bytes (the whole file, or the range it names), read-only
 * and seekable. The file is opened on the first read or seek, never by the conversion
 * itself: middleware that only changes headers costs no open(). Reading it does not use
 * the FileBody up, so PsrConverter::fromPsrBody() always gives the FileBody back and the
 * connection still streams the file rather than a copy in memory.
 *
 * @internal
 */
final class FileBodyStream implements StreamInterface
{
    /** @var resource|null */
    private $handle = null;

    private int $position = 0;

    private bool $detached = false;

    public function __construct(private readonly FileBody $body)
    {
    }

    public function getFileBody(): FileBody
    {
        return $this->body;
    }

    public function __toString(): string
    {
        $this->rewind();

        return $this->getContents();
    }

    public function close(): void
    {
        if ($this->handle !== null) {
            \fclose($this->handle);
        }
        $this->handle = null;
        $this->detached = true;
    }

    /** @return resource|null the open file, at this stream's position; the stream is unusable after */
    public function detach()
    {
        if ($this->detached) {
            return null;
        }
        $handle = $this->open();
        \fseek($handle, $this->body->getOffset() + $this->position);
        $this->handle = null;
        $this->detached = true;

        return $handle;
    }

    public function getSize(): ?int
    {
        return $this->detached ? null : $this->body->getLength();
    }

    public function tell(): int
    {
        $this->usable();

        return $this->position;
    }

    public function eof(): bool
    {
        return $this->detached || $this->position >= $this->body->getLength();
    }

    public function isSeekable(): bool
    {
        return !$this->detached;
    }

    public function seek(int $offset, int $whence = \SEEK_SET): void
    {
        $this->usable();
        $this->position = SeekTarget::of($offset, $whence, $this->position, $this->body->getLength());
    }

    public function rewind(): void
    {
        $this->seek(0);
    }

    public function isWritable(): bool
    {
        return false;
    }

    public function write(string $string): int
    {
        throw new \RuntimeException('A file response body is read-only: give the response a new body instead');
    }

    public function isReadable(): bool
    {
        return !$this->detached;
    }

    public function read(int $length): string
    {
        $this->usable();
        $length = \min($length, $this->body->getLength() - $this->position);
        if ($length < 1) {
            return '';
        }
        $handle = $this->open();
        \fseek($handle, $this->body->getOffset() + $this->position);
        $bytes = \fread($handle, $length);
        if ($bytes === false) {
            throw new \RuntimeException(\sprintf('Cannot read "%s"', $this->body->getPath()));
        }
        $this->position += \strlen($bytes);

        return $bytes;
    }

    public function getContents(): string
    {
        $contents = '';
        while (($chunk = $this->read(65536)) !== '') {
            $contents .= $chunk;
        }

        return $contents;
    }

    public function getMetadata(?string $key = null)
    {
        $metadata = $this->detached ? [] : \stream_get_meta_data($this->open());

        return $key === null ? $metadata : ($metadata[$key] ?? null);
    }

    /** @return resource */
    private function open()
    {
        if ($this->handle === null) {
            $handle = @\fopen($this->body->getPath(), 'rb');
            if ($handle === false) {
                throw new \RuntimeException(\sprintf('Cannot open "%s": %s', $this->body->getPath(), \error_get_last()['message'] ?? 'unknown error'));
            }
            $this->handle = $handle;
        }

        return $this->handle;
    }

    private function usable(): void
    {
        if ($this->detached) {
            throw new \RuntimeException('The stream is detached');
        }
    }

    public function __destruct()
    {
        if ($this->handle !== null) {
            \fclose($this->handle);
        }
    }
}
