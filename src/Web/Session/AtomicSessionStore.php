<?php

declare(strict_types=1);

namespace Petrel\Web\Session;

use Closure;

/**
 * A store that can change one session as a single step: what a save reads and what it
 * writes back cannot be interleaved with another request's save. {@see Session} saves a
 * stored session through update() when its store offers it; with a plain SessionStore it
 * reads and writes, and two saves of one session at the same moment can still lose one
 * side's keys. All of Petrel's stores implement it: MemoryStore (a worker runs one
 * coroutine at a time), FileSessionStore (an exclusive flock() around the read and the
 * write, across processes) and RedisStore (WATCH, then MULTI/EXEC, again when the key
 * changed meanwhile).
 */
interface AtomicSessionStore extends SessionStore
{
    /**
     * Passes the data stored under $id (null when there is none: never written, destroyed,
     * expired, unreadable) to $change, and stores what it returns for $ttl seconds, or
     * destroys $id when it returns null, with no other update(), write() or destroy() of
     * $id, by any process, between that read and that write.
     *
     * $change may be called more than once (a store that detects a change made meanwhile
     * calls it again with the newer data), so it must compute its result from its argument
     * alone, and must not suspend the coroutine: a store may hold a lock that blocks the
     * whole worker while it runs.
     *
     * @param Closure(array<mixed>|null): (array<mixed>|null) $change
     * @return array<mixed>|null what was stored; null when $id was destroyed
     */
    public function update(string $id, Closure $change, int $ttl): ?array;
}
