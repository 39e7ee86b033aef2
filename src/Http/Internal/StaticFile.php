<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

/**
 * What StaticFiles knows about one path under its root, from one stat(): a regular
 * readable file with its validators, or a directory. Built once per stat-cache entry, so
 * the ETag, Last-Modified and Content-Type strings are not formatted per request.
 *
 * @internal
 */
final readonly class StaticFile
{
    /** Strong validator: mtime and size in hex, as nginx makes it ("5f0e1c2a-1a2b"). */
    public string $etag;

    public string $lastModified;

    /**
     * @param string $path the real path (symlinks resolved): what is opened and sent
     * @param string $contentType from the requested name's extension, as nginx does
     */
    public function __construct(
        public string $path,
        public bool $isDirectory,
        public int $size = 0,
        public int $mtime = 0,
        public string $contentType = MimeTypes::DEFAULT,
    ) {
        $this->etag = \sprintf('"%x-%x"', $mtime, $size);
        $this->lastModified = HttpDate::format($mtime);
    }
}
