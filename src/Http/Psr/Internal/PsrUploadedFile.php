<?php

declare(strict_types=1);

namespace Petrel\Http\Psr\Internal;

use Nyholm\Psr7\Stream;
use Petrel\Http\UploadedFile;
use Psr\Http\Message\StreamInterface;
use Psr\Http\Message\UploadedFileInterface;

/**
 * A PSR-7 view of a Petrel upload: the same temp file, opened only when getStream() is
 * called, and moveTo() is the Petrel file's own (a rename; the Petrel handler after the
 * middleware sees the file moved). PsrConverter::fromPsrRequest() gives the Petrel
 * UploadedFile back.
 *
 * @internal
 */
final class PsrUploadedFile implements UploadedFileInterface
{
    public function __construct(private readonly UploadedFile $file)
    {
    }

    public function getPetrelFile(): UploadedFile
    {
        return $this->file;
    }

    public function getStream(): StreamInterface
    {
        try {
            return Stream::create($this->file->getStream());
        } catch (\Error $unusable) {
            throw new \RuntimeException($unusable->getMessage(), 0, $unusable); // failed upload, or moved
        }
    }

    public function moveTo(string $targetPath): void
    {
        if ($targetPath === '') {
            throw new \InvalidArgumentException('Target path must not be empty');
        }
        try {
            $this->file->moveTo($targetPath);
        } catch (\Error $unusable) {
            throw new \RuntimeException($unusable->getMessage(), 0, $unusable);
        }
    }

    public function getSize(): int
    {
        return $this->file->getSize();
    }

    public function getError(): int
    {
        return $this->file->getError();
    }

    public function getClientFilename(): ?string
    {
        return $this->file->getClientFilename();
    }

    public function getClientMediaType(): ?string
    {
        return $this->file->getClientMediaType();
    }
}
