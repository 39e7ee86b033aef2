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
 * and returns it when it ends, so a request sees its own transaction and two requests can
 * never share a connection. A connection that broke, or that a request left inside an
 * open transaction, is closed rather than reused; idle ones killed by a server restart are
 * noticed at checkout and replaced.
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
            isUsable: static fn (Connection $c): bool => $c->isUsable() && !$c->inTransaction(),
            healthCheck: static fn (Connection $c) => $c->ping(),
            close: static fn (Connection $c) => $c->close(),
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

    /** The current coroutine's connection (leased on first use, returned when it ends). */
    public function connection(): Connection
    {
        return $this->pool->lease();
    }

    /**
     * @param array<int|string, mixed> $params
     * @return list<array<string, mixed>>
     */
    public function query(string $sql, array $params = []): array
    {
        return $this->pool->lease()->query($sql, $params);
    }

    /**
     * The first row, or null.
     *
     * @param array<int|string, mixed> $params
     * @return array<string, mixed>|null
     */
    public function first(string $sql, array $params = []): ?array
    {
        return $this->pool->lease()->query($sql, $params)[0] ?? null;
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
        return $this->pool->lease()->execute($sql, $params);
    }

    /**
     * @param array<int|string, mixed> $params
     * @return iterable<int, array<string, mixed>>
     */
    public function stream(string $sql, array $params = []): iterable
    {
        return $this->pool->lease()->stream($sql, $params);
    }

    /**
     * @template T
     * @param Closure(Connection): T $work
     * @return T
     */
    public function transaction(Closure $work): mixed
    {
        return $this->pool->lease()->transaction($work);
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
}
