<?php

declare(strict_types=1);

namespace Petrel\Http;

/**
 * A response body produced piece by piece, e.g. by a generator. Without a known length
 * it is sent chunked to HTTP/1.1 clients and delimited by closing the connection for
 * HTTP/1.0 clients. With a $length it is sent with Content-Length and must give exactly
 * that many bytes: one that gives more or fewer, or that throws once its head is out, has
 * its response cut and its connection closed, and the error is logged with the request. A
 * generator can be iterated once: do not send the response twice.
 */
final readonly class StreamBody implements ResponseBody
{
    /** @param iterable<string> $chunks */
    public function __construct(private iterable $chunks, private ?int $length = null)
    {
        if ($length !== null && $length < 0) {
            throw new \ValueError('Length must not be negative');
        }
    }

    /** @return iterable<string> */
    public function getChunks(): iterable
    {
        return $this->chunks;
    }

    public function getLength(): ?int
    {
        return $this->length;
    }
}
