<?php

declare(strict_types=1);

namespace Petrel\Http;

/**
 * A response body read from a file: the whole file, or $length bytes from $offset (a
 * range). The size is taken when the body is made; the connection streams the bytes.
 */
final readonly class FileBody implements ResponseBody
{
    private int $length;

    /** @throws \RuntimeException when the file is not a readable regular file */
    public function __construct(private string $path, private int $offset = 0, ?int $length = null)
    {
        \clearstatcache(true, $path);
        $size = \is_file($path) && \is_readable($path) ? \filesize($path) : false;
        if ($size === false) {
            throw new \RuntimeException(\sprintf('File "%s" is not a readable file', $path));
        }
        if ($offset < 0 || $offset > $size) {
            throw new \ValueError(\sprintf('Offset %d is outside the file (%d bytes)', $offset, $size));
        }
        $length ??= $size - $offset;
        if ($length < 0 || $offset + $length > $size) {
            throw new \ValueError(\sprintf('Range %d+%d is outside the file (%d bytes)', $offset, $length, $size));
        }
        $this->length = $length;
    }

    public function getPath(): string
    {
        return $this->path;
    }

    public function getOffset(): int
    {
        return $this->offset;
    }

    public function getLength(): int
    {
        return $this->length;
    }
}
