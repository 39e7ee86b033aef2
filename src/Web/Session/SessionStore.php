<?php

declare(strict_types=1);

namespace Petrel\Web\Session;

/**
 * Where sessions live between requests. Implementations are shared by all requests of a
 * worker (concurrently, in coroutines) and keep no per-request state. Every implementation
 * passes the conformance suite in tests/Unit/Web/Session/SessionStoreTestCase.php.
 *
 * The data is what Session hands over: an array of JSON data (null, bool, int, float, UTF-8
 * strings, arrays of these). Ids are the session ids as sent in the cookie. A store that
 * can also change a session in one step implements {@see AtomicSessionStore}: concurrent
 * requests of one user then never lose each other's keys.
 */
interface SessionStore
{
    /**
     * The data written under $id, or null when there is none (never written, destroyed,
     * expired, or unreadable).
     *
     * @return array<mixed>|null
     */
    public function read(string $id): ?array;

    /**
     * Stores $data under $id for $ttl seconds (replacing what was there, and its TTL).
     *
     * @param array<mixed> $data
     */
    public function write(string $id, array $data, int $ttl): void;

    /** Deletes $id; nothing happens when it does not exist. */
    public function destroy(string $id): void;
}
