<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql;

use Closure;
use Petrel\Coroutine\Coroutine;
use Petrel\Database\Connection;
use Petrel\Database\ConnectionException;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\DatabaseError;
use Petrel\Database\Mysql\Internal\ClientOptions;
use Petrel\Database\Mysql\Internal\Command;
use Petrel\Database\Mysql\Internal\Connector;
use Petrel\Database\Mysql\Internal\Guard;
use Petrel\Database\Mysql\Internal\HandshakeV10;
use Petrel\Database\Mysql\Internal\Link;
use Petrel\Database\Mysql\Internal\MetadataCache;
use Petrel\Database\Mysql\Internal\PacketFramer;
use Petrel\Database\Mysql\Internal\PreparedStatement;
use Petrel\Database\Mysql\Internal\ResponseReader;
use Petrel\Database\Mysql\Internal\ResultDecoder;
use Petrel\Database\Mysql\Internal\StatementPreparer;
use Petrel\Database\QueryException;
use Petrel\Database\Result;
use Petrel\Database\Statement;
use Throwable;

/**
 * A coroutine MariaDB/MySQL client over a Petrel socket: every call suspends only the calling
 * coroutine and honours its deadlines (Petrel\timeout()). One coroutine at a time: a second
 * one calling while a command is in flight gets a DatabaseError (use a Pool).
 *
 *     $db = MysqlConnection::connect(DatabaseConfig::fromUrl('mysql://app:secret@127.0.0.1/app'));
 *     $rows = $db->query('SELECT * FROM users WHERE id = :id', ['id' => 1]);
 *
 * - Without parameters a query is one COM_QUERY (text protocol). With parameters it is a
 *   server-side prepared statement (binary protocol), kept in a per-connection LRU cache
 *   (`statement_cache`, 256), so a repeated query costs one round trip (COM_STMT_EXECUTE).
 *   Parameter values never go into SQL text. Both protocols give the same PHP values.
 * - A response with several result sets (a CALL): query() and stream() give the first
 *   set's rows and read past the others; queryMulti() returns them all. execute() of a
 *   SELECT counts its rows.
 * - inTransaction() follows the server's status flags (also after COMMIT or DDL in SQL text).
 * - A command interrupted by a deadline or a cancellation leaves the protocol out of step:
 *   the socket is closed, the connection becomes unusable, and (unless `kill_on_cancel=0`)
 *   `KILL QUERY` is sent for it from a fresh connection, so the server does not run it on.
 *   A lost connection, a protocol error, or a fatal server error (connection killed,
 *   server shutdown) make it unusable too, with a ConnectionException.
 *
 * Options (the URL's query string: charset, tls, connect_timeout…) are described in
 * Internal\ClientOptions; TLS is `prefer` by default, except to loopback hosts and Unix
 * sockets. Multi-statements are not enabled, which limits what an SQL injection could do.
 */
final class MysqlConnection implements Connection
{
    private readonly ResultDecoder $text;
    private readonly ResultDecoder $binary;
    private readonly StatementPreparer $statements;
    private readonly ResponseReader $reader;
    private readonly Guard $guard;

    private function __construct(
        DatabaseConfig $config,
        ClientOptions $options,
        private readonly Link $link,
        private readonly HandshakeV10 $greeting,
        private readonly int $capabilities,
        int $status,
    ) {
        $cache = new MetadataCache();
        $this->text = new ResultDecoder($capabilities, false, $cache);
        $this->binary = new ResultDecoder($capabilities, true, $cache);
        $this->statements = new StatementPreparer($link, $capabilities, $options->statementCache);
        $this->reader = new ResponseReader($link, $status);
        $this->guard = new Guard($link, $config, $greeting->connectionId, $options->killOnCancel);
    }

    /**
     * Connects and logs in (suspends the calling coroutine).
     *
     * @throws ConnectionException refused, timed out, TLS required but unavailable, access denied…
     */
    public static function connect(DatabaseConfig $config): self
    {
        $options = ClientOptions::from($config);
        [$link, $greeting, $capabilities, $status] = Connector::open($config, $options);

        return new self($config, $options, $link, $greeting, $capabilities, $status);
    }

    public function query(string $sql, array $params = []): array
    {
        /** @var list<array<string, mixed>> */
        return $this->run($sql, $params, ResponseReader::FIRST_SET);
    }

    /**
     * Runs a statement returning several result sets (CALL of a procedure) and returns the
     * rows of each.
     *
     * @param array<int|string, mixed> $params
     * @return list<list<array<string, mixed>>>
     */
    public function queryMulti(string $sql, array $params = []): array
    {
        /** @var list<list<array<string, mixed>>> */
        return $this->run($sql, $params, ResponseReader::ALL_SETS);
    }

    public function execute(string $sql, array $params = []): Result
    {
        $result = $this->run($sql, $params, ResponseReader::OUTCOME);
        \assert($result instanceof Result);

        return $result;
    }

    /**
     * Yields the rows of the first result set as they arrive, decoded a batch at a time, so
     * memory stays bounded. The connection is busy until the iteration ends. Abandoned early,
     * the rest of the response is skipped undecoded (what has arrived at once, the remainder
     * before the next command), and the connection stays usable.
     *
     * @return \Generator<int, array<string, mixed>>
     */
    public function stream(string $sql, array $params = []): \Generator
    {
        $this->enter();
        $this->guard->streaming = true;
        $decoder = null;
        try {
            $decoder = $this->send($sql, $params);
            yield from $this->reader->stream($decoder, $sql);
        } catch (QueryException | DatabaseError $e) {
            throw $e;
        } catch (Throwable $e) {
            throw $this->fail($e);
        } finally {
            // Abandoned early, this runs in the generator's destructor: no waiting here.
            $this->guard->streaming = false;
            if ($decoder !== null && $this->guard->unusable === null && !$decoder->isComplete()) {
                try {
                    $this->reader->abandon($decoder);
                } catch (Throwable $e) {
                    $this->fail($e);
                }
            }
            $this->guard->use->leave();
        }
    }

    public function prepare(string $sql): Statement
    {
        return $this->exclusive(fn (): Statement => new MysqlStatement($this, $this->statements->prepare($sql), $sql));
    }

    /** @throws DatabaseError if a transaction is already open (MySQL would commit it silently) */
    public function beginTransaction(): void
    {
        if ($this->inTransaction()) {
            throw new DatabaseError('A transaction is already open on this MySQL connection; nested transactions are not supported (use SAVEPOINT)');
        }
        $this->execute('START TRANSACTION');
    }

    public function commit(): void
    {
        $this->endTransaction('COMMIT');
    }

    public function rollBack(): void
    {
        $this->endTransaction('ROLLBACK');
    }

    public function inTransaction(): bool
    {
        return $this->guard->unusable === null && $this->reader->inTransaction();
    }

    /**
     * Whether the session autocommits, from the server's status flags (no round trip).
     * After `SET autocommit = 0` every statement opens a transaction that only COMMIT
     * ends; the Database pool closes such a connection rather than hand it to another
     * coroutine, whose writes would then be rolled back unseen.
     */
    public function autocommits(): bool
    {
        return $this->reader->autocommits();
    }

    public function transaction(Closure $work): mixed
    {
        $this->beginTransaction();
        try {
            $result = $work($this);
            $this->commit();
        } catch (Throwable $e) {
            if ($this->inTransaction() && !$this->guard->use->busy()) {
                try {
                    $this->rollBack();
                } catch (Throwable) {
                    // The connection broke (and the server rolls back); report the first failure.
                }
            }
            // $e tells the caller the transaction did not commit, also when the connection
            // was lost with it (a deadline cut its last statement or the ROLLBACK short).
            $this->guard->transactionLossTold();
            throw $e;
        }

        return $result;
    }

    public function ping(): void
    {
        $this->enter();
        try {
            $this->link->send(Command::ping());
            $error = $this->reader->ok($this->capabilities);
            if ($error !== null) {
                throw new ConnectionException("MySQL at {$this->link->where} failed a ping: {$error->message} ({$error->code})");
            }
        } catch (Throwable $e) {
            throw $this->fail($e);
        } finally {
            $this->guard->use->leave();
        }
    }

    public function isUsable(): bool
    {
        if ($this->guard->unusable !== null || $this->guard->use->busy()) {
            return false;
        }

        // With an abandoned response still arriving there are bytes to read: no peeking then.
        return $this->reader->pending === null ? $this->link->isIdle() : !$this->link->socket->isClosed();
    }

    /** Says goodbye (COM_QUIT) when idle, then closes the socket. A command in flight in another coroutine fails. */
    public function close(): void
    {
        if ($this->guard->unusable === null && !$this->guard->use->busy()) {
            try {
                $this->link->socket->write(PacketFramer::frame(Command::quit(), 0));
            } catch (Throwable) {
                // Closing anyway.
            }
        }
        $this->guard->unusable ??= 'it was closed';
        $this->link->socket->close();
    }

    public function driverName(): string
    {
        return 'mysql';
    }

    /** The server's version, e.g. "10.11.6-MariaDB" (without MariaDB's "5.5.5-" prefix). */
    public function serverVersion(): string
    {
        return $this->greeting->version();
    }

    /** The server's thread id for this connection (CONNECTION_ID(), what KILL takes). */
    public function connectionId(): int
    {
        return $this->greeting->connectionId;
    }

    public function __destruct()
    {
        $this->close();
    }

    /**
     * @internal for MysqlStatement
     * @param array<int|string, mixed> $params
     * @return list<array<string, mixed>>|Result
     */
    public function runStatement(PreparedStatement $statement, array $params, string $sql, bool $rows): array|Result
    {
        return $this->exclusive(function () use ($statement, $params, $sql, $rows): array|Result {
            $this->link->send($this->statements->encode($statement, $params));
            $this->binary->reset();
            /** @var list<array<string, mixed>>|Result */
            return $this->reader->read($this->binary, $sql, $rows ? ResponseReader::FIRST_SET : ResponseReader::OUTCOME);
        });
    }

    /** @internal for MysqlStatement: frees the statement on the server (with the next command) */
    public function closeStatement(PreparedStatement $statement): void
    {
        if ($this->guard->unusable === null) {
            $this->statements->close($statement);
        }
    }

    /** @internal for tests: the coroutine sending KILL QUERY after an interrupted command, if any */
    public function killer(): ?Coroutine
    {
        return $this->guard->killer;
    }

    /**
     * @param array<int|string, mixed> $params
     * @return list<array<string, mixed>>|list<list<array<string, mixed>>>|Result
     */
    private function run(string $sql, array $params, int $mode): array|Result
    {
        // exclusive() written out: every query comes here, and a closure per query costs.
        $this->enter();
        try {
            return $this->reader->read($this->send($sql, $params), $sql, $mode);
        } catch (QueryException | DatabaseError $e) {
            throw $e;
        } catch (Throwable $e) {
            throw $this->fail($e);
        } finally {
            $this->guard->use->leave();
        }
    }

    /**
     * Runs one command with the connection held by the calling coroutine: server errors and
     * misuse pass through (the connection stays in step); anything else (I/O, protocol,
     * cancellation) breaks the connection first.
     *
     * @template T
     * @param Closure(): T $command
     * @param bool $killQuery false for a command KILL QUERY cannot stop (see Guard::fail())
     * @return T
     */
    private function exclusive(Closure $command, bool $killQuery = true): mixed
    {
        $this->enter();
        try {
            return $command();
        } catch (QueryException | DatabaseError $e) {
            throw $e;
        } catch (Throwable $e) {
            throw $this->fail($e, $killQuery);
        } finally {
            $this->guard->use->leave();
        }
    }

    /**
     * Sends the command for $sql: COM_QUERY, or (with parameters) COM_STMT_EXECUTE of the
     * cached prepared statement, preparing it first if needed. Returns the decoder to read
     * the response with.
     *
     * @param array<int|string, mixed> $params
     */
    private function send(string $sql, array $params): ResultDecoder
    {
        if ($params === []) {
            $this->link->send("\x03" . $sql);
            $this->text->reset();

            return $this->text;
        }
        $this->statements->execute($sql, $params);
        $this->binary->reset();

        return $this->binary;
    }

    /**
     * COMMIT or ROLLBACK. Cut short, neither gets a KILL QUERY: the server finishes either once
     * sent (and rolls back a closed connection's transaction), so a killer would be for nothing.
     */
    private function endTransaction(string $sql): void
    {
        $this->exclusive(fn () => $this->reader->read($this->send($sql, []), $sql, ResponseReader::OUTCOME), killQuery: false);
    }

    /** Claims the connection for this coroutine, first skipping what an abandoned stream left. */
    private function enter(): void
    {
        $this->guard->enter();
        if ($this->reader->pending !== null) {
            try {
                $this->reader->catchUp();
            } catch (Throwable $e) {
                $this->guard->use->leave();
                throw $this->fail($e);
            }
        }
    }

    /** Guard::fail(), telling it whether a transaction was open (and so is lost). */
    private function fail(Throwable $e, bool $killQuery = true): Throwable
    {
        return $this->guard->fail($e, $this->reader->inTransaction(), $killQuery);
    }
}
