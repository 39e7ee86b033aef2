<?php

declare(strict_types=1);

namespace Petrel\Database;

use Closure;

/**
 * One SQL connection (MariaDB/MySQL, PostgreSQL or SQLite). Calls look synchronous; with
 * the coroutine clients they suspend only the calling coroutine and honour its deadlines.
 *
 * Parameters are always bound, never interpolated: a list for `?` placeholders, or an
 * array keyed by name for `:name` placeholders. Values may be null, bool, int, float,
 * string, Stringable, DateTimeInterface (sent as 'Y-m-d H:i:s[.u]') or a BackedEnum.
 *
 * Rows are associative arrays with PHP types: integers as int, floats as float, NULL as
 * null; DECIMAL/NUMERIC and dates as strings (exact, as the server prints them).
 *
 * A connection is never shared: a second coroutine calling while one is in flight gets a
 * DatabaseError. Use a Pool (or Database, which leases one per coroutine).
 */
interface Connection
{
    /**
     * Runs a query and returns all its rows.
     *
     * @param array<int|string, mixed> $params
     * @return list<array<string, mixed>>
     * @throws QueryException for server errors (with SQLSTATE and driver code)
     * @throws ConnectionException if the connection is lost (it is then unusable)
     * @throws DatabaseError for misuse: the connection is busy (another coroutine, an unfinished
     *                       stream(), a listen()), or a statement this client refuses (COPY … STDIN)
     */
    public function query(string $sql, array $params = []): array;

    /**
     * Runs a statement (INSERT, UPDATE, DDL…): affected rows and last insert id.
     *
     * @param array<int|string, mixed> $params
     * @throws QueryException for server errors
     * @throws ConnectionException if the connection is lost
     * @throws DatabaseError for misuse, as query()
     */
    public function execute(string $sql, array $params = []): Result;

    /**
     * Yields rows one at a time without loading the whole result. The connection is busy
     * until the iteration ends; abandoning it early makes the driver skip (or discard) the rest.
     *
     * @param array<int|string, mixed> $params
     * @return iterable<int, array<string, mixed>>
     */
    public function stream(string $sql, array $params = []): iterable;

    /** A server-side prepared statement (MySQL binary protocol, PostgreSQL named statement). */
    public function prepare(string $sql): Statement;

    public function beginTransaction(): void;

    public function commit(): void;

    public function rollBack(): void;

    public function inTransaction(): bool;

    /**
     * Runs $work in a transaction: commits if it returns, rolls back and rethrows if it
     * throws. Returns what $work returns.
     *
     * @template T
     * @param Closure(Connection): T $work
     * @return T
     */
    public function transaction(Closure $work): mixed;

    /** Sends a round trip to the server. @throws ConnectionException if it is gone */
    public function ping(): void;

    /**
     * Whether the connection can take a new command: open, in sync with the server, not
     * busy. Cheap (no round trip; at most a non-blocking peek at the socket), for pools.
     */
    public function isUsable(): bool;

    public function close(): void;

    /** "mysql", "pgsql" or "sqlite". */
    public function driverName(): string;
}
