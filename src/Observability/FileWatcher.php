<?php

declare(strict_types=1);

namespace Petrel\Observability;

use Closure;
use Petrel\Process\Sidecar;

/**
 * `--watch[=DIR,…]`: the master polls the directories (the APP's by default) 4 times a
 * second for PHP files and templates that changed, appeared or went away, and asks for a
 * graceful reload (new workers first; the old ones finish their requests). No external
 * watcher: a stat() per file per poll (vendor/, node_modules/ and dot-directories are
 * skipped), and a content hash only for files modified within the last 2 s, so two edits
 * in the same second are told apart although mtime counts seconds.
 *
 * A changed PHP file that does not parse keeps the old workers running and logs the error
 * with its file:line; a change that parses but fails at boot is reported by the reload
 * (Master keeps the old workers then too). Changed files are dropped from opcache first, so
 * the new workers never run a cached copy.
 */
final class FileWatcher implements Sidecar
{
    public const EXTENSIONS = ['php', 'phtml', 'inc', 'twig', 'html', 'htm', 'tpl', 'latte', 'mustache'];
    private const SKIP = ['vendor', 'node_modules'];

    /** @var array<string, array{int, int, int, ?string}> path => [mtime, size, inode, hash of a recent file] */
    private array $files;

    /**
     * @param list<string> $directories absolute paths
     * @param Closure(string): void|null $log Log::info() by default
     */
    public function __construct(private readonly array $directories, private readonly ?Closure $log = null)
    {
        $this->files = $this->scan();
    }

    public function streams(): array
    {
        return [];
    }

    public function onReadable(mixed $stream, Closure $status): void
    {
    }

    public function poll(Closure $status): bool
    {
        $files = $this->scan();
        $changed = [];
        foreach ($files as $path => $state) {
            $before = $this->files[$path] ?? null;
            // The hash counts only while both scans have one (the file was recently modified).
            if ($before === null || \array_slice($before, 0, 3) !== \array_slice($state, 0, 3)
                || ($before[3] !== null && $state[3] !== null && $before[3] !== $state[3])) {
                $changed[] = $path;
            }
        }
        $removed = \array_keys(\array_diff_key($this->files, $files));
        $this->files = $files;
        if ($changed === [] && $removed === []) {
            return false;
        }
        foreach ($changed as $path) {
            if (\str_ends_with($path, '.php') && ($error = self::syntaxError($path)) !== null) {
                $this->say("not reloading: {$error}; the running workers keep the previous code");

                return false;
            }
        }
        foreach ([...$changed, ...$removed] as $path) {
            if (\function_exists('opcache_invalidate')) {
                @\opcache_invalidate($path, true);
            }
        }
        $names = \array_map(static fn (string $path): string => \basename($path), [...$changed, ...$removed]);
        $this->say(\sprintf('%s changed: reloading the workers', \implode(', ', \array_slice($names, 0, 5)) . (\count($names) > 5 ? ' and ' . (\count($names) - 5) . ' more' : '')));

        return true;
    }

    public function onWorkerExit(array $worker): void
    {
    }

    /** "syntax error, unexpected … in /app/x.php:12", or null when the file parses. */
    public static function syntaxError(string $path): ?string
    {
        $code = @\file_get_contents($path);
        if ($code === false) {
            return null; // gone meanwhile: the next poll sees it
        }
        try {
            $tokens = \token_get_all($code, \TOKEN_PARSE);
            unset($tokens);
        } catch (\ParseError $error) {
            return "{$error->getMessage()} in {$path}:{$error->getLine()}";
        }

        return null;
    }

    /** @return array<string, array{int, int, int, ?string}> */
    private function scan(): array
    {
        \clearstatcache();
        $files = [];
        $recent = \time() - 2;
        foreach ($this->directories as $directory) {
            // The walk opens the directory too: one removed (a branch switched, a build
            // directory cleaned) threw out of the master's loop, and the server died with it.
            // Its files count as removed; when it is back, they count as new.
            try {
                $iterator = new \RecursiveIteratorIterator(
                    new \RecursiveCallbackFilterIterator(
                        new \RecursiveDirectoryIterator($directory, \FilesystemIterator::SKIP_DOTS | \FilesystemIterator::CURRENT_AS_FILEINFO),
                        static fn (\SplFileInfo $file): bool => $file->isDir()
                            ? !\str_starts_with($file->getFilename(), '.') && !\in_array($file->getFilename(), self::SKIP, true)
                            : \in_array(\strtolower($file->getExtension()), self::EXTENSIONS, true),
                    ),
                );
                foreach ($iterator as $file) {
                    \assert($file instanceof \SplFileInfo);
                    $stat = @\stat($file->getPathname());
                    if ($stat !== false) {
                        $hash = $stat['mtime'] >= $recent ? \md5((string) @\file_get_contents($file->getPathname())) : null;
                        $files[$file->getPathname()] = [$stat['mtime'], $stat['size'], $stat['ino'], $hash];
                    }
                }
            } catch (\UnexpectedValueException) {
                // The directory, or one below it, removed before or during the walk: the next poll sees the rest.
            }
        }

        return $files;
    }

    private function say(string $message): void
    {
        $this->log !== null ? ($this->log)($message) : Log::info($message);
    }
}
