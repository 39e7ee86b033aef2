<?php

declare(strict_types=1);

namespace Petrel\Database;

use Closure;
use Petrel\Database\Mysql\MysqlConnection;
use Petrel\Database\Pgsql\PgsqlConnection;
use Petrel\Database\Sqlite\SqliteConnection;
use Petrel\Pool\Pool;
use Petrel\Pool\PoolConfig;

/**
 * The database of an app: a pool of connections for this worker, and the query methods
 * most code needs. Each coroutine (each request) leases one connection on its first query
 * and returns it when it ends, so a request's statements share one session (its
 * transaction, LAST_INSERT_ID(), a SET) and two requests can never share a connection at
 * once. A connection that broke, that a request left inside an open transaction, or (MySQL)
 * with autocommit off, is closed rather than reused; idle ones killed by a server restart
 * are noticed at checkout and replaced. Other session state is not reset between leases
 * (no round trip per request): a SET, a temporary table, a user variable, an advisory or
 * GET_LOCK() lock, LOCK TABLES, a PostgreSQL SET SESSION CHARACTERISTICS stay with the
 * connection for the next coroutine that leases it. Scope such state to a transaction (SET
 * LOCAL on PostgreSQL, SET STATEMENT … FOR on MariaDB) or undo it, or close the connection
 * when done with it ($db->connection()->close(): the pool replaces it).
 *
 * Long-lived coroutines (the run() closure of a consumer, a WebSocket connection, a timer):
 *  - A lease not used for PoolConfig::leaseIdleTimeout (10 s) goes back to the pool while
 *    its connection is idle outside a transaction; the next query leases again, so session
 *    state does not outlive such a pause. Chosen over leasing per statement, which would
 *    send a request's statements to different connections (a LAST_INSERT_ID() or a SET
 *    lost) and cost an acquire and a release per query instead of one store.
 *    (bench/micro/pool-lease.php, SQLite, JIT: a pooled query per coroutine 3.7-3.8 µs
 *    before and after this; callgrind +725 instructions per coroutine, +3 %.)
 *  - A connection that died while held (KILL, wait_timeout, a failover) is noticed before
 *    the next query (a non-blocking peek at the socket, no round trip: 0.7-0.8 µs, about
 *    2 % of a loopback MySQL/PostgreSQL query) and replaced
 *    transparently, when outside a transaction. Inside one, that query throws a
 *    ConnectionException saying the transaction was lost (the server rolled it back);
 *    the query after it starts afresh on a new connection. A query that was on the wire
 *    when the connection died is not retried (it may have run): it throws.
 *
 * connection() gives the coroutine's connection itself, for code that keeps it (prepared
 * statements, session state): it is held until the coroutine ends, except that after
 * leaseIdleTimeout unused outside a transaction it is closed (not shared) and the next
 * connection() gives a new one; call connection() again for each unit of work.
 *
 *     $db = Database::fromUrl(getenv('DATABASE_URL') ?: 'sqlite:///var/app.db');
 *     $user = $db->first('SELECT * FROM users WHERE id = ?', [1]);
 */
final class Database
{
    /** @var Pool<Connection> */
    private readonly Pool $pool;

    public function __construct(public readonly DatabaseConfig $config, PoolConfig $poolConfig = new PoolConfig())
    {
        $connect = match ($config->driver) {
            'mysql' => static fn (): Connection => MysqlConnection::connect($config),
            'pgsql' => static fn (): Connection => PgsqlConnection::connect($config),
            'sqlite' => static fn (): Connection => SqliteConnection::open($config),
            default => throw new \InvalidArgumentException("Unsupported database driver \"{$config->driver}\""),
        };
        /** @var Pool<Connection> $pool */
        $pool = new Pool(
            "{$config->driver} {$config->where()}",
            $connect,
            $poolConfig,
            isUsable: $config->driver === 'sqlite'
                // Asked each time a request's connection goes back: one call, not four (~550
                // instructions; the instanceof of a class never loaded costs ~130 alone).
                ? SqliteConnection::isIdle(...)
                : static fn (Connection $c): bool => $c->isUsable() && !$c->inTransaction()
                    && (!$c instanceof MysqlConnection || $c->autocommits()),
            healthCheck: static fn (Connection $c) => $c->ping(),
            close: static fn (Connection $c) => $c->close(),
            // A network connection may be closed by its server while it idles; an SQLite
            // one changes only when used, and was checked when it came back.
            checkOnCheckout: $config->driver !== 'sqlite',
        );
        $this->pool = $pool;
    }

    public static function fromUrl(string $url, PoolConfig $poolConfig = new PoolConfig()): self
    {
        return new self(DatabaseConfig::fromUrl($url), $poolConfig);
    }

    /** From DATABASE_URL, or $default when it is not set. */
    public static function fromEnv(?string $default = null, PoolConfig $poolConfig = new PoolConfig()): self
    {
        return new self(DatabaseConfig::fromEnv('DATABASE_URL', $default), $poolConfig);
    }

    /**
     * The current coroutine's connection (leased on first use, returned when it ends), a
     * healthy one: a held connection that died is replaced (see the class comment).
     *
     * @throws ConnectionException if it died inside a transaction (which is lost)
     */
    public function connection(): Connection
    {
        $connection = $this->pool->hold();

        return $connection->isUsable() ? $connection : $this->recover($connection, true);
    }

    /**
     * @param array<int|string, mixed> $params
     * @return list<array<string, mixed>>
     */
    public function query(string $sql, array $params = []): array
    {
        return $this->lease()->query($sql, $params);
    }

    /**
     * The first row, or null.
     *
     * @param array<int|string, mixed> $params
     * @return array<string, mixed>|null
     */
    public function first(string $sql, array $params = []): ?array
    {
        return $this->lease()->query($sql, $params)[0] ?? null;
    }

    /**
     * The first column of the first row, or null.
     *
     * @param array<int|string, mixed> $params
     */
    public function scalar(string $sql, array $params = []): mixed
    {
        $row = $this->first($sql, $params);

        return $row === null ? null : (\array_values($row)[0] ?? null);
    }

    /** @param array<int|string, mixed> $params */
    public function execute(string $sql, array $params = []): Result
    {
        return $this->lease()->execute($sql, $params);
    }

    /**
     * Leases when the iteration starts (the connection is busy, so kept, until it ends).
     *
     * @param array<int|string, mixed> $params
     * @return iterable<int, array<string, mixed>>
     */
    public function stream(string $sql, array $params = []): iterable
    {
        yield from $this->lease()->stream($sql, $params);
    }

    /**
     * @template T
     * @param Closure(Connection): T $work
     * @return T
     */
    public function transaction(Closure $work): mixed
    {
        return $this->lease()->transaction($work);
    }

    /**
     * PostgreSQL LISTEN/NOTIFY: listens on a connection of its own (never a pooled one)
     * until the callback returns false, a deadline expires or the coroutine is cancelled;
     * see PgsqlConnection::listen(). Notify with `$db->execute('SELECT pg_notify(?, ?)', […])`.
     *
     * @param non-empty-list<string> $channels
     * @param Closure(string, string, int): mixed $onNotify (channel, payload, pid of the notifier)
     * @throws DatabaseError on another driver
     */
    public function listen(array $channels, Closure $onNotify): void
    {
        if ($this->config->driver !== 'pgsql') {
            throw new DatabaseError("listen() needs PostgreSQL (LISTEN/NOTIFY); this database is {$this->config->driver}");
        }
        $connection = PgsqlConnection::connect($this->config);
        try {
            $connection->listen($channels, $onNotify);
        } finally {
            $connection->close();
        }
    }

    public function driverName(): string
    {
        return $this->config->driver;
    }

    /** @return Pool<Connection> */
    public function pool(): Pool
    {
        return $this->pool;
    }

    public function close(): void
    {
        $this->pool->close();
    }

    /**
     * The coroutine's connection for one query, a dead one replaced first. One the pool has
     * just checked out (the coroutine's first query) is not checked again.
     */
    private function lease(): Connection
    {
        $connection = $this->pool->lease($kept);

        return !$kept || $connection->isUsable() ? $connection : $this->recover($connection, false);
    }

    /**
     * A leased connection that is not usable: busy with this coroutine's own stream (the
     * call says so), alive after all (a round trip tells), or dead: replaced, unless it
     * was inside a transaction, which is then reported lost.
     */
    private function recover(Connection $connection, bool $hold): Connection
    {
        try {
            $connection->ping();

            return $connection;
        } catch (DatabaseError) {
            return $connection;
        } catch (ConnectionException $lost) {
            $this->pool->discardLease();
            if ($lost->transactionLost) {
                throw new ConnectionException(\sprintf(
                    'The %s connection of this coroutine died inside a transaction, so the transaction was lost '
                    . '(the server rolls it back): run it again. %s',
                    $this->config->driver,
                    $lost->getMessage(),
                ), 0, $lost, true);
            }
        }

        return $hold ? $this->pool->hold() : $this->pool->lease();
    }
}
