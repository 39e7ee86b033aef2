<?php

declare(strict_types=1);

namespace Petrel\Web\Session;

/**
 * Sessions as JSON files in a directory, shared by every process on the machine: the
 * workers of `bin/petrel start` (a form posted to another worker finds its session), and
 * classic mode, where a process lives for one request. Like PHP's own file sessions: fine
 * on one machine, not shared between machines (use RedisStore there).
 *
 * A write rewrites the file in place under an exclusive flock() and a read takes a shared
 * one, so a reader never sees half a session; update() reads and writes under one
 * exclusive lock, so processes saving one session take turns. (Not a temporary file
 * renamed over the old one: on ext4 that forces the data to disk, ~100 µs more per write.)
 * A process killed in the middle of a write leaves a file that reads as no session. Calls
 * block the worker for the file access: ~6 µs to read and ~15 µs to write a small session
 * in the page cache (see docs/web-layer.md). Each file's modification time is its expiry,
 * so the sweep of expired files reads no file, only inodes (~2 µs a file); it runs on one
 * write in SWEEP_ONE_IN, at most once per SWEEP_INTERVAL in a worker.
 */
final class FileSessionStore implements AtomicSessionStore
{
    /** By default, one write in this many sweeps the directory for expired sessions. */
    public const SWEEP_ONE_IN = 100;

    /**
     * Seconds a file must be past its expiry to be swept: a file being written has, for a
     * moment, the current time as its modification time before touch() sets its expiry.
     */
    private const SWEEP_GRACE = 60;

    /** Seconds between two sweeps by one store (one worker), at least. */
    public const SWEEP_INTERVAL = 60;

    /** @var \Closure(): int */
    private readonly \Closure $clock;

    private int $sweptAt = 0;

    /**
     * @param string $dir created (0700) on the first write
     * @param (\Closure(): int)|null $clock the current Unix time (tests pass a fake one)
     * @param int $sweepOneIn one write in this many sweeps expired files (1: every write),
     *        and never twice within SWEEP_INTERVAL in one process
     */
    public function __construct(private readonly string $dir, ?\Closure $clock = null, private readonly int $sweepOneIn = self::SWEEP_ONE_IN)
    {
        $this->clock = $clock ?? \time(...);
    }

    public function read(string $id): ?array
    {
        $path = $this->path($id);
        $file = $path === null ? false : @\fopen($path, 'r');
        if ($file === false) {
            return null;
        }
        try {
            $json = \flock($file, \LOCK_SH) ? \stream_get_contents($file) : false;
        } finally {
            \fclose($file);
        }
        $entry = $this->entry($json);
        if ($entry !== null && $entry['expires'] <= ($this->clock)()) {
            $this->deleteIfExpired((string) $path);

            return null;
        }

        return $entry['data'] ?? null;
    }

    public function write(string $id, array $data, int $ttl): void
    {
        $path = $this->path($id) ?? throw new \InvalidArgumentException('Malformed session id');
        $this->createDirectory();
        $file = @\fopen($path, 'c');
        try {
            $written = $file !== false && \flock($file, \LOCK_EX) && $this->put($file, $path, $data, $ttl);
        } finally {
            $file === false || \fclose($file);
        }
        if (!$written) {
            throw new \RuntimeException("Cannot write the session file {$path}");
        }
        $this->sweepSometimes();
    }

    /**
     * The read, $change and the write under one exclusive flock(), which every write() and
     * update() of the file takes and read() waits for: processes that update one session
     * take turns. A destroy() meanwhile unlinks the file: its lock then guards nothing, so
     * the file is opened again (see lock()).
     */
    public function update(string $id, \Closure $change, int $ttl): ?array
    {
        $path = $this->path($id) ?? throw new \InvalidArgumentException('Malformed session id');
        $this->createDirectory();
        $file = $this->lock($path);
        try {
            $entry = $this->entry(\stream_get_contents($file));
            $data = $change($entry !== null && $entry['expires'] > ($this->clock)() ? $entry['data'] : null);
            if ($data === null) {
                @\unlink($path);
            } elseif (!$this->put($file, $path, $data, $ttl)) {
                throw new \RuntimeException("Cannot write the session file {$path}");
            }
        } finally {
            \fclose($file);
        }
        $this->sweepSometimes();

        return $data;
    }

    public function destroy(string $id): void
    {
        $path = $this->path($id);
        if ($path !== null) {
            @\unlink($path);
        }
    }

    /** The file of $id, or null for an id that could name anything but a file here. */
    private function path(string $id): ?string
    {
        return \preg_match('/^[A-Za-z0-9_-]{16,128}$/', $id) === 1 ? "{$this->dir}/{$id}.json" : null;
    }

    private function createDirectory(): void
    {
        if (!\is_dir($this->dir) && !@\mkdir($this->dir, 0700, true) && !\is_dir($this->dir)) {
            throw new \RuntimeException("Cannot create the session directory {$this->dir}");
        }
    }

    /**
     * $path opened for reading and writing (created if need be) under an exclusive lock,
     * and still the file $path names once the lock is ours: the process that held it may
     * have unlinked it (destroy(), an update() that emptied the session), and what is
     * written to an unlinked file is lost. Then the new file is opened and locked instead.
     *
     * @return resource
     */
    private function lock(string $path): mixed
    {
        for ($attempt = 1; $attempt <= 100; $attempt++) {
            $file = @\fopen($path, 'c+');
            if ($file === false || !\flock($file, \LOCK_EX)) {
                $file === false || \fclose($file);

                throw new \RuntimeException("Cannot open the session file {$path}");
            }
            if (self::names($path, $file)) {
                return $file;
            }
            \fclose($file);
        }

        throw new \RuntimeException("Cannot lock the session file {$path}: it was deleted each time it was opened");
    }

    /**
     * Deletes the expired session read() found, unless another process has saved the
     * session since (read() had let go of its lock, and a save then starts it afresh):
     * under the exclusive lock that writers take, the file is read again and deleted only
     * if it still holds an expired session.
     */
    private function deleteIfExpired(string $path): void
    {
        $file = @\fopen($path, 'r');
        if ($file === false) {
            return;
        }
        try {
            if (\flock($file, \LOCK_EX) && self::names($path, $file)) {
                $entry = $this->entry(\stream_get_contents($file));
                if ($entry !== null && $entry['expires'] <= ($this->clock)()) {
                    @\unlink($path);
                }
            }
        } finally {
            \fclose($file);
        }
    }

    /**
     * Whether $path still names the open $file (not unlinked, nor replaced by a new file).
     *
     * @param resource $file
     */
    private static function names(string $path, mixed $file): bool
    {
        \clearstatcache(true, $path);
        $named = @\stat($path);
        $opened = \fstat($file);

        return $named !== false && $opened !== false && $named['ino'] === $opened['ino'] && $named['dev'] === $opened['dev'];
    }

    /**
     * A file's contents as this store wrote them; null for anything else (a failed read,
     * a file cut short by a process killed while writing it).
     *
     * @return array{expires: int, data: array<mixed>}|null
     */
    private function entry(string|false $json): ?array
    {
        $entry = $json === false ? null : \json_decode($json, true);
        if (!\is_array($entry) || !\is_int($entry['expires'] ?? null) || !\is_array($entry['data'] ?? null)) {
            return null;
        }

        return $entry;
    }

    /**
     * Writes $data over what the locked $file held, and its expiry as the file's
     * modification time.
     *
     * @param resource $file
     * @param array<mixed> $data
     */
    private function put(mixed $file, string $path, array $data, int $ttl): bool
    {
        $expires = ($this->clock)() + \max(1, $ttl);
        $json = \json_encode(['expires' => $expires, 'data' => $data], \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_UNICODE | \JSON_PRESERVE_ZERO_FRACTION);

        return \rewind($file) && \fwrite($file, $json) === \strlen($json) && \ftruncate($file, \strlen($json)) && @\touch($path, $expires);
    }

    private function sweepSometimes(): void
    {
        if (\random_int(1, \max(1, $this->sweepOneIn)) === 1 && ($this->clock)() >= $this->sweptAt + self::SWEEP_INTERVAL) {
            $this->sweep();
        }
    }

    /** Deletes the files whose modification time (their expiry) has passed. */
    private function sweep(): void
    {
        $this->sweptAt = ($this->clock)();
        $now = $this->sweptAt - self::SWEEP_GRACE;
        \clearstatcache();
        foreach (\glob("{$this->dir}/*.json", \GLOB_NOSORT) ?: [] as $file) {
            $expires = @\filemtime($file);
            if ($expires !== false && $expires <= $now) {
                @\unlink($file);
            }
        }
    }
}
