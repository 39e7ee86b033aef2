<?php

declare(strict_types=1);

namespace Petrel\Web\Session;

use Closure;

/**
 * Sessions in the worker's memory. Fine for development and for a single worker. With
 * several workers each has its own MemoryStore and sessions are NOT shared: a user whose
 * next request lands on another worker has no session there. Sessions are also lost when a
 * worker restarts (reload, max-requests recycling, crash). Use RedisStore for those cases.
 *
 * Expired sessions are dropped when read, and swept every SWEEP_EVERY writes so the store
 * does not grow without bound.
 */
final class MemoryStore implements AtomicSessionStore
{
    public const SWEEP_EVERY = 1000;

    /** @var array<string, array{array<mixed>, int}> id => [data, expires at] */
    private array $sessions = [];
    private int $writes = 0;
    /** @var Closure(): int */
    private readonly Closure $clock;

    /** @param (Closure(): int)|null $clock the current Unix time (tests pass a fake one) */
    public function __construct(?Closure $clock = null)
    {
        $this->clock = $clock ?? \time(...);
    }

    public function read(string $id): ?array
    {
        $entry = $this->sessions[$id] ?? null;
        if ($entry === null) {
            return null;
        }
        if ($entry[1] <= ($this->clock)()) {
            unset($this->sessions[$id]);

            return null;
        }

        return $entry[0];
    }

    public function write(string $id, array $data, int $ttl): void
    {
        $now = ($this->clock)();
        $this->sessions[$id] = [$data, $now + $ttl];
        if (++$this->writes % self::SWEEP_EVERY === 0) {
            foreach ($this->sessions as $key => [, $expires]) {
                if ($expires <= $now) {
                    unset($this->sessions[$key]);
                }
            }
        }
    }

    public function destroy(string $id): void
    {
        unset($this->sessions[$id]);
    }

    /** Atomic as it is: $change may not suspend, and nothing else runs in the worker meanwhile. */
    public function update(string $id, Closure $change, int $ttl): ?array
    {
        $data = $change($this->read($id));
        $data === null ? $this->destroy($id) : $this->write($id, $data, $ttl);

        return $data;
    }

    /** How many sessions are held (expired ones not swept yet included). */
    public function count(): int
    {
        return \count($this->sessions);
    }
}
