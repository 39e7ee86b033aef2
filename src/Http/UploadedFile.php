<?php

declare(strict_types=1);

namespace Petrel\Http;

use Petrel\Http\Internal\TempFiles;

/**
 * A file received in a multipart/form-data request. Its content lives in a temporary file
 * that is deleted once neither the request nor this object is referenced, unless it was
 * moved with moveTo().
 */
final class UploadedFile
{
    private bool $moved = false;

    /**
     * @param string|null $tempPath where the content is (null when $error is not UPLOAD_ERR_OK)
     * @param int $error one of the UPLOAD_ERR_* constants
     * @param TempFiles|null $owner keeps the temporary file alive while this object lives
     */
    public function __construct(
        private readonly ?string $tempPath,
        private readonly int $size,
        private readonly int $error = \UPLOAD_ERR_OK,
        private readonly ?string $clientFilename = null,
        private readonly ?string $clientMediaType = null,
        private readonly ?TempFiles $owner = null,
    ) {
    }

    /** The file name sent by the client, path components removed; never trust it as a path. */
    public function getClientFilename(): ?string
    {
        return $this->clientFilename;
    }

    public function getClientMediaType(): ?string
    {
        return $this->clientMediaType;
    }

    public function getSize(): int
    {
        return $this->size;
    }

    /** UPLOAD_ERR_OK, or UPLOAD_ERR_NO_FILE for an empty file input. */
    public function getError(): int
    {
        return $this->error;
    }

    public function getTempPath(): ?string
    {
        return $this->moved ? null : $this->tempPath;
    }

    public function isMoved(): bool
    {
        return $this->moved;
    }

    /** Moves the content to $targetPath (rename; PHP copies across file systems). */
    public function moveTo(string $targetPath): void
    {
        $path = $this->usablePath();
        if ($targetPath === '') {
            throw new \ValueError('Target path must not be empty');
        }
        if (!@\rename($path, $targetPath)) {
            $error = \error_get_last()['message'] ?? 'unknown error';
            throw new \RuntimeException(\sprintf('Could not move uploaded file to "%s": %s', $targetPath, $error));
        }
        $this->owner?->release($path);
        $this->moved = true;
        // Temporary files are created 0600; give the moved file the usual permissions,
        // as move_uploaded_file() does.
        @\chmod($targetPath, 0666 & ~\umask());
    }

    /** @return resource a new read-only stream at the start of the content */
    public function getStream()
    {
        $stream = \fopen($this->usablePath(), 'rb');
        if ($stream === false) {
            throw new \RuntimeException('Could not open the uploaded file');
        }

        return $stream;
    }

    public function getContents(): string
    {
        $contents = \file_get_contents($this->usablePath());
        if ($contents === false) {
            throw new \RuntimeException('Could not read the uploaded file');
        }

        return $contents;
    }

    private function usablePath(): string
    {
        if ($this->error !== \UPLOAD_ERR_OK || $this->tempPath === null) {
            throw new \Error('The upload failed (error ' . $this->error . '); it has no content');
        }
        if ($this->moved) {
            throw new \Error('The uploaded file was already moved');
        }

        return $this->tempPath;
    }
}
