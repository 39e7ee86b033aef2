<?php

declare(strict_types=1);

namespace Petrel\Process\Internal;

/**
 * Drops opcache's copies of the scripts changed on disk since they were compiled, in a
 * worker just forked, before it loads the app: a reload (or a restart) then runs the code
 * that is on disk. opcache checks a file's timestamp at most every revalidate_freq seconds
 * of the request's time, and a CLI process's request never ends: in forked workers that
 * time stays the master's start, so without this a changed file was never compiled again
 * and `petrel reload` kept serving the old code.
 *
 * With opcache.validate_timestamps=0 (a production setting: files never change under a
 * running server) nothing is checked, as opcache itself would not.
 *
 * @internal
 */
final class OpcacheRevalidation
{
    private function __construct()
    {
    }

    public static function run(): void
    {
        if (!\function_exists('opcache_get_status') || !\filter_var(\ini_get('opcache.validate_timestamps'), \FILTER_VALIDATE_BOOL)) {
            return;
        }
        $status = @\opcache_get_status(true);
        if (!\is_array($status) || !\is_array($status['scripts'] ?? null)) {
            return; // opcache off, or restricted (opcache.restrict_api)
        }
        \clearstatcache();
        foreach ($status['scripts'] as $path => $script) {
            $compiled = \is_array($script) ? ($script['timestamp'] ?? null) : null;
            if (!\is_string($path) || !\is_int($compiled)) {
                continue;
            }
            $modified = @\filemtime($path);
            if ($modified !== $compiled) {
                @\opcache_invalidate($path, true);
            }
        }
    }
}
