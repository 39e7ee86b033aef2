<?php

declare(strict_types=1);

namespace Petrel\Web\View\Internal;

use Twig\Loader\FilesystemLoader;

/**
 * Debug-mode loader: the cache key includes a hash of the template file, so an edited
 * template gets a new compiled class and is recompiled on its next render. Twig's own
 * auto_reload cannot do that in a resident worker: once a template's class is loaded, the
 * Environment never looks at the file again. Each edit leaves the old class in memory,
 * which is fine for development; hashing reads the file on every render, which is not
 * fine for production — hence debug only.
 *
 * Where a name's file is, is looked up again on every render too: FilesystemLoader
 * remembers it for the life of the loader, and its misses as well, so in a worker a
 * template created after a render failed to find it stayed "Unable to find template" until
 * a restart, a deleted one rendered as empty (with a warning from file_get_contents()), and
 * one added to an earlier template directory did not override the later one's.
 */
final class ReloadingFilesystemLoader extends FilesystemLoader
{
    public function getCacheKey(string $name): string
    {
        $this->cache = $this->errorCache = [];
        $key = parent::getCacheKey($name);
        $path = $this->findTemplate($name);
        $hash = $path === null ? false : @\hash_file('xxh128', $path);

        return $hash === false ? $key : $key . '#' . $hash;
    }
}
