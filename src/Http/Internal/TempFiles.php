<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\HttpException;

/**
 * Owns the temporary files of one request's uploads and deletes them when the last holder
 * (the Request or one of its UploadedFile objects) lets go, unless they were moved away.
 *
 * @internal
 */
final class TempFiles
{
    public const PREFIX = 'petrel-upload-';

    /** @var array<string, true> */
    private array $paths = [];

    public function create(): string
    {
        $path = \tempnam(\sys_get_temp_dir(), self::PREFIX);
        if ($path === false) {
            throw new HttpException(500, 'Could not create a temporary file for an upload');
        }
        $this->paths[$path] = true;

        return $path;
    }

    /** The file was moved or deleted by its user: no longer ours to delete. */
    public function release(string $path): void
    {
        unset($this->paths[$path]);
    }

    public function deleteAll(): void
    {
        foreach ($this->paths as $path => $_) {
            if (\is_file($path)) {
                \unlink($path);
            }
        }
        $this->paths = [];
    }

    public function __destruct()
    {
        $this->deleteAll();
    }
}
