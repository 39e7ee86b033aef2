<?php

declare(strict_types=1);

namespace Petrel\Database\Sqlite;

use Closure;
use PDO;
use PDOException;
use PDOStatement;
use Petrel\Database\Connection;
use Petrel\Database\ConnectionException;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\Internal\ParameterValue;
use Petrel\Database\QueryException;
use Petrel\Database\Result;
use Petrel\Database\Statement;
use Throwable;

/**
 * SQLite through pdo_sqlite: the embedded default. SQLite is a local file, so its calls
 * block the worker rather than suspend; a query on a local file typically takes micro- to
 * milliseconds, which is cheaper than any round trip. Use MariaDB or PostgreSQL for
 * workloads with slow queries. Files are opened in WAL mode with a busy timeout, so several
 * workers can read and write the same database.
 */
final class SqliteConnection implements Connection
{
    /** sqlite3.h's SQLITE_OPEN_NOMUTEX, which PDO has no constant for. */
    private const SQLITE_OPEN_NOMUTEX = 0x8000;

    private ?PDO $pdo;
    /** @var array<string, PDOStatement> */
    private array $statements = [];

    private function __construct(PDO $pdo, private readonly string $path)
    {
        $this->pdo = $pdo;
    }

    public static function open(DatabaseConfig|string $config): self
    {
        $path = $config instanceof DatabaseConfig ? (string) $config->database : $config;
        if (!\extension_loaded('pdo_sqlite')) {
            throw new ConnectionException('SQLite needs the pdo_sqlite extension (Debian: apt-get install php8.2-sqlite3)');
        }
        if ($path !== ':memory:') {
            $dir = \dirname($path);
            if (!\is_dir($dir) && !@\mkdir($dir, 0775, true) && !\is_dir($dir)) {
                throw new ConnectionException("Cannot create the directory {$dir} for the SQLite database");
            }
        }
        try {
            $pdo = new PDO("sqlite:{$path}", null, null, [
                PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION,
                PDO::ATTR_DEFAULT_FETCH_MODE => PDO::FETCH_ASSOC,
                PDO::ATTR_STRINGIFY_FETCHES => false,
                PDO::ATTR_TIMEOUT => 5,
                // PDO's default flags plus SQLITE_OPEN_NOMUTEX: this connection is only ever
                // used by this process's one thread, so SQLite need not lock a mutex around
                // each of its calls (~1,700 instructions fewer per primary-key SELECT, of ~14,300).
                PDO::SQLITE_ATTR_OPEN_FLAGS => PDO::SQLITE_OPEN_READWRITE | PDO::SQLITE_OPEN_CREATE | self::SQLITE_OPEN_NOMUTEX,
            ]);
            if ($path !== ':memory:') {
                self::useWal($pdo);
                $pdo->exec('PRAGMA synchronous = NORMAL');
            }
            $pdo->exec('PRAGMA foreign_keys = ON');
        } catch (PDOException $error) {
            throw new ConnectionException("Cannot open the SQLite database {$path}: {$error->getMessage()}", 0, $error);
        }

        return new self($pdo, $path);
    }

    /**
     * Switching to WAL takes a lock that the busy timeout does not wait for: workers opening
     * a fresh file at the same moment retry briefly; a file already in WAL needs no switch.
     */
    private static function useWal(PDO $pdo): void
    {
        for ($attempt = 1; ; $attempt++) {
            try {
                $mode = '';
                $statement = $pdo->query('PRAGMA journal_mode');
                if ($statement !== false) {
                    $mode = \strtolower((string) $statement->fetchColumn());
                    $statement->closeCursor(); // an open statement would block the switch
                }
                $statement = null;
                if ($mode !== 'wal') {
                    $pdo->exec('PRAGMA journal_mode = WAL');
                }

                return;
            } catch (PDOException $error) {
                if ($attempt >= 50 || !\str_contains($error->getMessage(), 'locked')) {
                    throw $error;
                }
                \usleep(10000 * $attempt);
            }
        }
    }

    public function query(string $sql, array $params = []): array
    {
        // run() inlined: every read comes here (a call, ~270 instructions, 3 % of a primary-key SELECT).
        // fetchAll() reads up to SQLITE_DONE, where pdo_sqlite resets the statement: no closeCursor() needed.
        /** @var list<array<string, mixed>> */
        return $this->runStatement($this->statements[$sql] ?? $this->prepareCached($sql), $params, $sql)->fetchAll();
    }

    public function execute(string $sql, array $params = []): Result
    {
        $statement = $this->run($sql, $params);
        $affected = $statement->rowCount();
        $statement->closeCursor();
        $id = $this->pdo()->lastInsertId();

        return new Result($affected, $id === false || $id === '0' ? null : (int) $id);
    }

    public function stream(string $sql, array $params = []): iterable
    {
        $statement = $this->run($sql, $params);
        try {
            while (($row = $statement->fetch()) !== false) {
                /** @var array<string, mixed> $row */
                yield $row;
            }
        } finally {
            $statement->closeCursor();
        }
    }

    public function prepare(string $sql): Statement
    {
        try {
            return new SqliteStatement($this->pdo()->prepare($sql), $this, $sql);
        } catch (PDOException $error) {
            throw self::queryException($error, $sql);
        }
    }

    public function beginTransaction(): void
    {
        $this->wrap(fn () => $this->pdo()->beginTransaction(), 'BEGIN');
    }

    public function commit(): void
    {
        $this->wrap(fn () => $this->pdo()->commit(), 'COMMIT');
    }

    public function rollBack(): void
    {
        $this->wrap(fn () => $this->pdo()->rollBack(), 'ROLLBACK');
    }

    public function inTransaction(): bool
    {
        return $this->pdo !== null && $this->pdo->inTransaction();
    }

    public function transaction(Closure $work): mixed
    {
        $this->beginTransaction();
        try {
            $result = $work($this);
            $this->commit();

            return $result;
        } catch (Throwable $error) {
            if ($this->inTransaction()) {
                $this->rollBack();
            }
            throw $error;
        }
    }

    public function ping(): void
    {
        $this->query('SELECT 1');
    }

    public function isUsable(): bool
    {
        return $this->pdo !== null;
    }

    /**
     * For the pool's check on return (Database): $connection is an SQLite one, open and
     * outside a transaction. Static, so that the pool calls it as its check itself rather
     * than through a closure calling a method (a call fewer, ~100 instructions per coroutine).
     */
    public static function isIdle(Connection $connection): bool
    {
        return $connection instanceof self && $connection->pdo !== null && !$connection->pdo->inTransaction();
    }

    public function close(): void
    {
        $this->statements = [];
        $this->pdo = null;
    }

    public function driverName(): string
    {
        return 'sqlite';
    }

    /**
     * @internal binds and runs $statement, mapping errors
     * @param array<int|string, mixed> $params
     */
    public function runStatement(PDOStatement $statement, array $params, string $sql): PDOStatement
    {
        try {
            foreach ($params as $key => $value) {
                $name = \is_int($key) ? $key + 1 : ':' . \ltrim($key, ':');
                // Ints and strings, most parameters, go straight through; the rest are normalised.
                if (\is_int($value)) {
                    $statement->bindValue($name, $value, PDO::PARAM_INT);
                } elseif (\is_string($value)) {
                    $statement->bindValue($name, $value);
                } else {
                    self::bindOther($statement, $name, ParameterValue::normalize($value, $key));
                }
            }
            $statement->execute();

            return $statement;
        } catch (PDOException $error) {
            throw self::queryException($error, $sql);
        }
    }

    private static function bindOther(PDOStatement $statement, int|string $name, null|bool|int|float|string $value): void
    {
        $type = match (true) {
            $value === null => PDO::PARAM_NULL,
            \is_bool($value) => PDO::PARAM_BOOL,
            \is_int($value) => PDO::PARAM_INT,
            default => PDO::PARAM_STR,
        };
        $statement->bindValue($name, \is_float($value) ? (string) $value : $value, $type);
    }

    /** @param array<int|string, mixed> $params */
    private function run(string $sql, array $params): PDOStatement
    {
        return $this->runStatement($this->statements[$sql] ?? $this->prepareCached($sql), $params, $sql);
    }

    /** Prepares $sql and keeps it for the next run, up to 256 statements (oldest dropped first). */
    private function prepareCached(string $sql): PDOStatement
    {
        try {
            $statement = $this->pdo()->prepare($sql);
        } catch (PDOException $error) {
            throw self::queryException($error, $sql);
        }
        if (\count($this->statements) >= 256) {
            \array_shift($this->statements);
        }

        return $this->statements[$sql] = $statement;
    }

    private function pdo(): PDO
    {
        return $this->pdo ?? throw new ConnectionException("The SQLite connection to {$this->path} is closed");
    }

    private function wrap(Closure $operation, string $what): void
    {
        try {
            $operation();
        } catch (PDOException $error) {
            throw self::queryException($error, $what);
        }
    }

    private static function queryException(PDOException $error, string $sql): QueryException
    {
        $info = $error->errorInfo ?? [];
        $sqlState = \is_string($info[0] ?? null) ? $info[0] : 'HY000';
        $code = \is_int($info[1] ?? null) ? $info[1] : 0;
        $message = \is_string($info[2] ?? null) ? $info[2] : $error->getMessage();

        return new QueryException("SQLite: {$message}", $sqlState, $code, $sql, $error);
    }
}
