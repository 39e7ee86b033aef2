<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\View;

/**
 * A fresh template directory under the system temp dir. Its paths are unique, so the
 * compiled classes of its templates cannot already exist in this PHP process (Twig names
 * the class after the template's path): compile counts start from zero.
 */
final class TemplateDir
{
    public readonly string $path;

    /** @param array<string, string> $templates name => source */
    public function __construct(array $templates = [])
    {
        $this->path = \sys_get_temp_dir() . '/petrel-view-' . \bin2hex(\random_bytes(8));
        \mkdir($this->path, 0o777, true);
        foreach ($templates as $name => $source) {
            $this->write($name, $source);
        }
    }

    public function write(string $name, string $source): void
    {
        $file = $this->path . '/' . $name;
        if (!\is_dir(\dirname($file))) {
            \mkdir(\dirname($file), 0o777, true);
        }
        \file_put_contents($file, $source);
    }

    /** Deletes the directory and everything in it. */
    public static function remove(string $dir): void
    {
        if (!\is_dir($dir)) {
            return;
        }
        $items = new \RecursiveIteratorIterator(
            new \RecursiveDirectoryIterator($dir, \FilesystemIterator::SKIP_DOTS),
            \RecursiveIteratorIterator::CHILD_FIRST,
        );
        foreach ($items as $item) {
            \assert($item instanceof \SplFileInfo);
            $item->isDir() ? \rmdir($item->getPathname()) : \unlink($item->getPathname());
        }
        \rmdir($dir);
    }
}
