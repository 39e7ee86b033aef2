<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql;

use Closure;
use Generator;
use Petrel\Database\Connection;
use Petrel\Database\ConnectionException;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\DatabaseError;
use Petrel\Database\Internal\StatementCache;
use Petrel\Database\Pgsql\Internal\ConnInfo;
use Petrel\Database\Pgsql\Internal\Cursor;
use Petrel\Database\Pgsql\Internal\Exchange;
use Petrel\Database\Pgsql\Internal\Executor;
use Petrel\Database\Pgsql\Internal\Link;
use Petrel\Database\Pgsql\Internal\Listener;
use Petrel\Database\Pgsql\Internal\ParsedSql;
use Petrel\Database\Pgsql\Internal\Placeholders;
use Petrel\Database\Pgsql\Internal\RowDecoder;
use Petrel\Database\QueryException;
use Petrel\Database\Result;
use Petrel\Database\Statement;
use Petrel\Pool\ExclusiveUse;
use PgSql\Result as PgResult;
use Throwable;

/**
 * A coroutine PostgreSQL client on ext-pgsql's asynchronous API: libpq speaks the protocol,
 * each wait suspends only the calling coroutine, and deadlines and cancellation reach
 * every call. Nothing blocks the worker but the first resolution of a host name (libpq
 * resolves before connecting; use an IP address or a Unix socket to avoid it).
 *
 *     $db = PgsqlConnection::connect(DatabaseConfig::fromUrl('pgsql://app:secret@127.0.0.1/app'));
 *     $db->query('SELECT * FROM users WHERE id = ?', [1]);
 *     $db->execute('INSERT INTO users (name) VALUES (:name) RETURNING id', ['name' => 'Ann'])->lastInsertId;
 *
 * Placeholders: `?` or `:name` (rewritten to $1…$n outside literals, identifiers and
 * comments; `??` is a literal `?`, e.g. the jsonb operator), or native `$1…$n`
 * (unchecked when no parameters are bound: PREPARE … AS, function bodies).
 * Parameters travel apart from the SQL, never interpolated. Parameter and row types: see
 * Internal\ParameterEncoder and Internal\RowDecoder — in short ints, floats, bools, NULL
 * and bytea come back typed; numeric, dates, json/jsonb (not decoded) and arrays as
 * PostgreSQL prints them. Bind binary data for bytea as `new Bytea($bytes)`.
 *
 * How statements run: a single SELECT/INSERT/UPDATE/DELETE/WITH/VALUES is prepared on the
 * server the second time the same SQL runs and executed by name from then on (the server
 * skips parsing and planning: up to twice the throughput on short queries); the 100 most
 * recently used are kept per connection (option statement_cache, 0 = off, e.g. behind a
 * transaction-pooling pgbouncer). Otherwise SQL with parameters runs as an unnamed
 * statement (one statement only), SQL without over the simple protocol, which allows
 * several statements (the rows of the last are returned).
 *
 * lastInsertId: PostgreSQL has none. For INSERT/UPDATE/DELETE … RETURNING it is the first
 * column of the first returned row; otherwise null.
 *
 * Transactions: after a failed statement PostgreSQL aborts the transaction (SQLSTATE
 * 25P02 for every later statement) until ROLLBACK; commit() then rolls back and throws a
 * QueryException, and transaction() rolls back whenever its closure throws.
 *
 * Deadlines and cancellation: a TimeoutException (or CancelledException) that interrupts a
 * command is rethrown at once. The connection is then in an unknown state, so it is
 * closed, without waiting: the socket is shut down, the server sees the client go and,
 * on PostgreSQL ≥ 14, aborts the running query within client_connection_check_interval
 * (set to 1 s on each connection; option client_connection_check_interval, in ms, 0 to
 * leave it); older servers finish the query and notice when they write the result.
 * (libpq's cancel request, pg_cancel_query(), blocks the worker: it opens a new
 * connection, then waits for the query to end — measured here on loopback at 3–6 ms
 * median and 84 ms worst of ten on a loaded machine; unbounded on a bad network.)
 * isUsable() is then false and later calls throw ConnectionException.
 *
 * LISTEN/NOTIFY: listen() receives notifications in a coroutine (as Redis subscribe() does
 * messages); notify() sends one. Use a connection of its own for listening (Database::listen()
 * opens one).
 *
 * Not supported: COPY FROM STDIN / TO STDOUT. Such a statement is refused with a DatabaseError
 * before it is sent, and the connection stays usable (use INSERT … VALUES with many rows, or
 * COPY with a server-side file). One the check misses (hidden behind a leading comment) is
 * refused by the server's answer instead, which closes the connection.
 */
final class PgsqlConnection implements Connection
{
    private ?Listener $listener = null;

    private function __construct(
        private readonly Exchange $exchange,
        private readonly ExclusiveUse $owner,
        private readonly Executor $executor,
    ) {
    }

    /**
     * Connects (host and port, default 5432, or a Unix socket directory), within the
     * connect_timeout option (seconds, default 10). Options: see Internal\ConnInfo.
     *
     * @throws ConnectionException with libpq's reason
     */
    public static function connect(DatabaseConfig $config): self
    {
        if (!\extension_loaded('pgsql')) {
            throw new ConnectionException('PostgreSQL needs the pgsql extension (Debian: apt-get install php8.2-pgsql)');
        }
        $link = Link::connect(ConnInfo::build($config), $config->where(), ConnInfo::connectTimeout($config), $config->password);
        $exchange = new Exchange($link);
        $cache = ConnInfo::statementCache($config);
        $connection = new self($exchange, self::exclusiveUse(), new Executor($exchange, $cache > 0 ? new StatementCache($cache) : null));
        $interval = ConnInfo::checkIntervalMs($config);
        if ($interval > 0 && $link->serverVersion() >= 14) {
            try {
                $connection->simple("SET client_connection_check_interval = {$interval}");
            } catch (QueryException) {
                // A server whose OS cannot watch sockets for it accepts only 0: do without.
            }
        }

        return $connection;
    }

    public function query(string $sql, array $params = []): array
    {
        $parsed = Placeholders::parse($sql);
        $values = $parsed->bind($params);
        $this->owner->enter();
        try {
            return $this->executor->rows($parsed, $values, $sql);
        } finally {
            $this->owner->leave();
        }
    }

    public function execute(string $sql, array $params = []): Result
    {
        $parsed = Placeholders::parse($sql);
        $values = $parsed->bind($params);
        $this->owner->enter();
        try {
            return RowDecoder::summary($this->executor->run($parsed, $values, $sql));
        } finally {
            $this->owner->leave();
        }
    }

    /**
     * Rows one at a time through a server-side cursor, 1,000 per round trip (see
     * Internal\Cursor): SELECT/VALUES/TABLE/WITH…SELECT only. The connection is busy until
     * the iteration ends or the generator is dropped; dropping it early closes the cursor
     * and ends the transaction it opened.
     */
    public function stream(string $sql, array $params = []): iterable
    {
        $parsed = Placeholders::parse($sql);

        return $this->iterate($parsed, $parsed->bind($params), $sql);
    }

    /** A named server-side statement; DEALLOCATEd by close() (or after it is dropped). */
    public function prepare(string $sql): Statement
    {
        $parsed = Placeholders::parse($sql);
        $name = $this->executor->name('petrel_s');
        $this->owner->enter();
        try {
            $this->exchange->prepare($name, $parsed->sql, $sql);
        } finally {
            $this->owner->leave();
        }

        return new PgsqlStatement($this->exchange, $this->owner, $name, $parsed, $sql);
    }

    public function beginTransaction(): void
    {
        $this->exchange->link->handle(); // throws if the connection is gone
        if ($this->inTransaction()) {
            throw new DatabaseError('A transaction is already open on this PostgreSQL connection (nest with SAVEPOINT)');
        }
        $this->simple('BEGIN');
    }

    public function commit(): void
    {
        $status = $this->transactionStatus('commit');
        if ($status === \PGSQL_TRANSACTION_INERROR) {
            $this->simple('ROLLBACK');
            throw self::aborted();
        }
        if (\pg_result_status($this->simple('COMMIT'), \PGSQL_STATUS_STRING) === 'ROLLBACK') {
            throw self::aborted();
        }
    }

    public function rollBack(): void
    {
        $this->transactionStatus('roll back');
        $this->simple('ROLLBACK');
    }

    public function inTransaction(): bool
    {
        $status = $this->exchange->transactionStatus();

        return $status !== \PGSQL_TRANSACTION_IDLE && $status !== \PGSQL_TRANSACTION_UNKNOWN;
    }

    public function transaction(Closure $work): mixed
    {
        $this->beginTransaction();
        try {
            $result = $work($this);
        } catch (Throwable $error) {
            if (!$this->owner->busy() && $this->inTransaction()) {
                try {
                    $this->simple('ROLLBACK');
                } catch (Throwable) {
                    // The connection is closed by now (e.g. the deadline had passed); the server rolls back.
                }
            }
            // $error tells the caller the transaction did not commit, also when the connection
            // was lost with it: the next call need not say so again.
            $this->exchange->link->transactionLossTold();
            throw $error;
        }
        try {
            $this->commit();
        } catch (Throwable $error) {
            $this->exchange->link->transactionLossTold(); // as above
            throw $error;
        }

        return $result;
    }

    /** An empty query: one round trip, valid even in a failed transaction. */
    public function ping(): void
    {
        $this->simple('');
    }

    public function isUsable(): bool
    {
        return !$this->owner->busy() && $this->exchange->isAlive();
    }

    /**
     * LISTENs to $channels and calls $onNotify(string $channel, string $payload, int $pid)
     * for each notification, in the calling coroutine, until the callback returns false,
     * unlisten() is called (from the callback or another coroutine), the connection is
     * closed (returns normally) or lost (ConnectionException), or a deadline around it
     * expires (its TimeoutException; the connection stays usable). Then it UNLISTENs. The
     * connection is busy meanwhile: other calls on it throw DatabaseError; notify from
     * another connection. A callback that throws ends the listening; the exception is
     * rethrown. Channel names are taken exactly as given (quoted identifiers), as
     * pg_notify() and notify() take them; an unquoted `NOTIFY Name` folds to lower case.
     *
     * @param non-empty-list<string> $channels
     * @param Closure(string, string, int): mixed $onNotify
     */
    public function listen(array $channels, Closure $onNotify): void
    {
        if ($channels === []) {
            throw new \InvalidArgumentException('listen() needs at least one channel');
        }
        $this->owner->enter();
        $this->listener = new Listener($this->exchange, $onNotify);
        try {
            $this->listener->run($channels);
        } finally {
            $this->listener = null;
            $this->owner->leave();
        }
    }

    /** Ends the running listen(), if any; from its callback or from another coroutine. */
    public function unlisten(): void
    {
        $this->listener?->stop();
    }

    /** Sends a notification (pg_notify(): delivered when the current transaction commits). */
    public function notify(string $channel, string $payload = ''): void
    {
        $this->execute('SELECT pg_notify(?, ?)', [$channel, $payload]);
    }

    public function close(): void
    {
        $this->listener?->stop(); // a listen() in another coroutine returns normally
        $this->exchange->close();
    }

    public function driverName(): string
    {
        return 'pgsql';
    }

    /** The one-coroutine-at-a-time check, with PostgreSQL's words for a conflict. */
    private static function exclusiveUse(): ExclusiveUse
    {
        return new ExclusiveUse(static fn (string $who, bool $caller): DatabaseError => new DatabaseError($caller
            ? 'PostgreSQL connection already in use by this coroutine: a stream() over it is still being iterated '
                . '(finish or drop that iteration first), or it is in listen() (call unlisten()); or use another connection'
            : "PostgreSQL connection already in use by {$who}; use a Pool"));
    }

    /**
     * @param list<int|string|null> $values
     * @return Generator<int, array<string, mixed>, mixed, void>
     */
    private function iterate(ParsedSql $parsed, array $values, string $sql): Generator
    {
        $this->owner->enter();
        try {
            yield from Cursor::rows($this->exchange, $this->executor->name('petrel_c'), $parsed, $values, $sql);
        } finally {
            $this->owner->leave();
        }
    }

    private function simple(string $sql): PgResult
    {
        $this->owner->enter();
        try {
            return $this->exchange->query($sql, $sql);
        } finally {
            $this->owner->leave();
        }
    }

    private function transactionStatus(string $action): int
    {
        $this->exchange->link->handle(); // throws if the connection is gone
        $status = $this->exchange->transactionStatus();
        if ($status === \PGSQL_TRANSACTION_IDLE) {
            throw new DatabaseError("No transaction is open on this PostgreSQL connection to {$action}");
        }

        return $status;
    }

    private static function aborted(): QueryException
    {
        return new QueryException(
            'PostgreSQL error 25P02: the transaction was aborted by an earlier error and has been rolled back; nothing was committed',
            '25P02',
            '25P02',
            'COMMIT',
        );
    }
}
