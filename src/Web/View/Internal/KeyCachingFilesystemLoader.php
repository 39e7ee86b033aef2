<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Loader\FilesystemLoader;

/**
 * Production loader: remembers each template's cache key. Twig asks for it on every render
 * of every template, extended layouts and includes too (it names the compiled class), and
 * FilesystemLoader recomputes it each time (name normalisation, path lookup). Outside debug
 * mode a template's file is not looked at again once compiled, so neither is its key;
 * changing the paths forgets the keys, as FilesystemLoader forgets the paths it found.
 *
 * FilesystemLoader also remembers each name it did not find, with its message, for the life
 * of the loader: in a worker rendering a template named after the URL ("pages/{slug}", a
 * 404 when missing), every made-up slug kept ~450 bytes (43 MB after 100,000 requests).
 * Here it remembers at most MISSES_MAX, then starts afresh.
 */
final class KeyCachingFilesystemLoader extends FilesystemLoader
{
    private const MISSES_MAX = 256;

    /** @var array<string, string> template name => cache key */
    private array $keys = [];

    public function getCacheKey(string $name): string
    {
        return $this->keys[$name] ??= parent::getCacheKey($name);
    }

    protected function findTemplate(string $name, bool $throw = true): ?string
    {
        if (\count($this->errorCache) >= self::MISSES_MAX) {
            $this->errorCache = [];
        }

        return parent::findTemplate($name, $throw);
    }

    public function setPaths($paths, string $namespace = self::MAIN_NAMESPACE): void
    {
        $this->keys = [];
        parent::setPaths($paths, $namespace);
    }

    public function addPath(string $path, string $namespace = self::MAIN_NAMESPACE): void
    {
        $this->keys = [];
        parent::addPath($path, $namespace);
    }

    public function prependPath(string $path, string $namespace = self::MAIN_NAMESPACE): void
    {
        $this->keys = [];
        parent::prependPath($path, $namespace);
    }
}
