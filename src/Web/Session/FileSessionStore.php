<?php

declare(strict_types=1);

namespace Petrel\Web\Session;

/**
 * Sessions as JSON files in a directory — for classic mode without Redis, where the process
 * (and so a MemoryStore) lives for one request only. Like PHP's own file sessions: fine on
 * one machine, not shared between machines. Writes go to a temporary file renamed into
 * place, so a reader never sees half a session. Expired files are swept now and then.
 */
final class FileSessionStore implements SessionStore
{
    /** One write in this many sweeps the directory for expired sessions. */
    private const SWEEP_ONE_IN = 100;

    /** @var \Closure(): int */
    private readonly \Closure $clock;

    /** @param (\Closure(): int)|null $clock the current Unix time (tests pass a fake one) */
    public function __construct(private readonly string $dir, ?\Closure $clock = null)
    {
        $this->clock = $clock ?? \time(...);
    }

    public function read(string $id): ?array
    {
        $path = $this->path($id);
        $json = $path === null ? false : @\file_get_contents($path);
        if ($json === false) {
            return null;
        }
        $entry = \json_decode($json, true);
        if (!\is_array($entry) || !\is_int($entry['expires'] ?? null) || !\is_array($entry['data'] ?? null)) {
            return null;
        }
        if ($entry['expires'] <= ($this->clock)()) {
            @\unlink((string) $path);

            return null;
        }

        return $entry['data'];
    }

    public function write(string $id, array $data, int $ttl): void
    {
        $path = $this->path($id) ?? throw new \InvalidArgumentException('Malformed session id');
        if (!\is_dir($this->dir) && !@\mkdir($this->dir, 0700, true) && !\is_dir($this->dir)) {
            throw new \RuntimeException("Cannot create the session directory {$this->dir}");
        }
        $json = \json_encode(['expires' => ($this->clock)() + \max(1, $ttl), 'data' => $data], \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_UNICODE | \JSON_PRESERVE_ZERO_FRACTION);
        $temp = $path . '.' . \bin2hex(\random_bytes(4)) . '.tmp';
        if (@\file_put_contents($temp, $json) === false || !@\rename($temp, $path)) {
            @\unlink($temp);
            throw new \RuntimeException("Cannot write the session file {$path}");
        }
        if (\random_int(1, self::SWEEP_ONE_IN) === 1) {
            $this->sweep();
        }
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

    private function sweep(): void
    {
        $now = ($this->clock)();
        foreach (\glob("{$this->dir}/*.json") ?: [] as $file) {
            $entry = \json_decode((string) @\file_get_contents($file), true);
            if (!\is_array($entry) || !\is_int($entry['expires'] ?? null) || $entry['expires'] <= $now) {
                @\unlink($file);
            }
        }
    }
}
