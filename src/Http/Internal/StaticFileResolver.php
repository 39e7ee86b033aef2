<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

/**
 * Maps URL paths to files under a root directory, safely, for StaticFiles.
 *
 * relativePath() percent-decodes the path and refuses what cannot name a file under the
 * root: NUL bytes, "." and ".." segments, and dotfiles (any segment starting with ".",
 * except ".well-known") unless allowed. lookup() then resolves symlinks with realpath()
 * and refuses a result outside the root (a symlink pointing out), a hidden real path, and
 * anything but a readable regular file or a directory.
 *
 * Results, misses included, are cached for $ttl seconds (like nginx's open_file_cache_valid):
 * a resident server would otherwise stat() on every request, and every request for an app
 * route passes here first. A file changed within the window is seen up to $ttl late. The
 * cache holds at most MAX_ENTRIES paths, oldest evicted first, so random URLs cannot grow it.
 *
 * @internal
 */
final class StaticFileResolver
{
    public const MAX_ENTRIES = 1024;

    private const S_IFMT = 0170000;
    private const S_IFDIR = 0040000;
    private const S_IFREG = 0100000;

    /** @var array<string, array{float, StaticFile|null}> relative path => [expires at, file] */
    private array $cache = [];

    private readonly string $prefix;

    /** @param string $root an absolute, symlink-free directory path (a realpath()) */
    public function __construct(
        private readonly string $root,
        private readonly bool $dotfiles,
        private readonly float $ttl,
    ) {
        $this->prefix = \rtrim($root, '/') . '/';
    }

    /**
     * The path relative to the root (no leading or trailing slash, '' for the root itself)
     * that a URL path names, or null when it names nothing that may be served.
     *
     * @param string $urlPath the request's path, not decoded
     */
    public function relativePath(string $urlPath): ?string
    {
        if ($urlPath === '' || $urlPath[0] !== '/') {
            return null;
        }
        $decoded = \rawurldecode($urlPath);
        if (\str_contains($decoded, "\0")) {
            return null;
        }
        $segments = [];
        foreach (\explode('/', $decoded) as $segment) {
            if ($segment === '') {
                continue;
            }
            if ($segment === '.' || $segment === '..' || ($segment[0] === '.' && !$this->isAllowedDotName($segment))) {
                return null;
            }
            $segments[] = $segment;
        }

        return \implode('/', $segments);
    }

    /** The file or directory at $relative (from relativePath()), or null if none may be served. */
    public function lookup(string $relative): ?StaticFile
    {
        $now = \hrtime(true) * 1e-9;
        $entry = $this->cache[$relative] ?? null;
        if ($entry !== null && $entry[0] > $now) {
            return $entry[1];
        }
        $file = $this->stat($relative);
        if ($this->ttl > 0) {
            unset($this->cache[$relative]);
            if (\count($this->cache) >= self::MAX_ENTRIES) {
                unset($this->cache[\array_key_first($this->cache)]);
            }
            $this->cache[$relative] = [$now + $this->ttl, $file];
        }

        return $file;
    }

    /** Drops a cached result (the file turned out to have changed). */
    public function forget(string $relative): void
    {
        unset($this->cache[$relative]);
    }

    private function stat(string $relative): ?StaticFile
    {
        $candidate = $this->prefix . $relative;
        \clearstatcache(true, $candidate);
        $real = \realpath($candidate);
        if ($real === false) {
            return null;
        }
        if ($real !== $this->root) {
            if (!\str_starts_with($real, $this->prefix)) {
                return null; // a symlink leading out of the root
            }
            if (!$this->dotfiles && \str_contains('/' . \substr($real, \strlen($this->prefix)), '/.')) {
                foreach (\explode('/', \substr($real, \strlen($this->prefix))) as $segment) {
                    if ($segment !== '' && $segment[0] === '.' && !$this->isAllowedDotName($segment)) {
                        return null; // a symlink to a hidden file
                    }
                }
            }
        }
        $stat = @\stat($real);
        if ($stat === false) {
            return null;
        }
        $type = $stat['mode'] & self::S_IFMT;
        if ($type === self::S_IFDIR) {
            return new StaticFile($real, true);
        }
        if ($type !== self::S_IFREG || !\is_readable($real)) {
            return null;
        }

        return new StaticFile($real, false, $stat['size'], $stat['mtime'], MimeTypes::fromPath($relative));
    }

    private function isAllowedDotName(string $segment): bool
    {
        return $this->dotfiles || $segment === '.well-known';
    }
}
