<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\HttpException;

/**
 * Collects a request body that arrives in pieces: in a string while it is small, in a
 * php://temp stream (memory, then a temporary file) once it grows past the memory limit.
 *
 * @internal
 */
final class BodySink
{
    private string $data = '';

    /** @var resource|null */
    private $stream = null;

    private int $size = 0;

    /**
     * @param int $memoryBytes bodies larger than this are spooled to a stream
     * @param int $expectedBytes size announced by Content-Length (0 when unknown)
     */
    public function __construct(private readonly int $memoryBytes, int $expectedBytes = 0)
    {
        if ($expectedBytes > $memoryBytes) {
            $this->stream = $this->openSpool();
        }
    }

    public function append(string $bytes): void
    {
        $this->size += \strlen($bytes);
        if ($this->stream !== null) {
            self::write($this->stream, $bytes);
        } elseif ($this->size > $this->memoryBytes) {
            $this->stream = $this->openSpool();
            self::write($this->stream, $this->data . $bytes);
            $this->data = '';
        } else {
            $this->data .= $bytes;
        }
    }

    public function size(): int
    {
        return $this->size;
    }

    /** @return string|resource the body: a string, or a stream rewound to its start */
    public function finish(): mixed
    {
        if ($this->stream === null) {
            return $this->data;
        }
        \rewind($this->stream);

        return $this->stream;
    }

    /** @return resource */
    private function openSpool()
    {
        $stream = \fopen('php://temp/maxmemory:' . $this->memoryBytes, 'w+b');
        if ($stream === false) {
            throw new HttpException(500, 'Could not spool the request body');
        }

        return $stream;
    }

    /** @param resource $stream */
    private static function write($stream, string $bytes): void
    {
        if ($bytes !== '' && \fwrite($stream, $bytes) !== \strlen($bytes)) {
            throw new HttpException(500, 'Could not spool the request body');
        }
    }
}
