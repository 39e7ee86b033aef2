<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Petrel\Database\ConnectionException;
use Petrel\Database\DatabaseError;
use PgSql\Connection as PgConnection;
use PgSql\Result as PgResult;
use Throwable;

/**
 * Commands and their results on a Link, through ext-pgsql's asynchronous API. libpq speaks
 * the protocol; each wait suspends the calling coroutine on the socket; no pg_* call made
 * here can block:
 *
 *  - send: pg_send_query/_params/_prepare/_execute with libpq in nonblocking mode (set
 *    before each send, as pg_connection_busy() switches it off); a send that does not fit
 *    the socket buffer returns 0, and pg_flush() is retried whenever the socket is writable;
 *  - receive: wait readable, pg_connection_busy() (which consumes input first), and
 *    pg_get_result() only once it cannot block, until it returns false;
 *  - a wait that throws (deadline, cancellation) aborts the link: the exchange is in an
 *    unknown state, and a late reply would be taken for the next command's.
 *
 * dispatch() sends cleanup without waiting (see Cursor); its results are read before the
 * next command.
 *
 * The `@` on pg_connection_busy(), pg_flush() and the sends: they switch libpq's blocking
 * mode back and forth and raise an E_NOTICE when that fails, which it does whenever the
 * connection has just broken; the failure is then seen through pg_connection_status().
 *
 * @internal
 */
final class Exchange
{
    /** A dispatched command's results are still to be read. */
    private bool $pending = false;
    private bool $unflushed = false;
    /** @var list<string> dispatched commands waiting for the pending one */
    private array $queue = [];
    /** The transaction status once the dispatched commands have run. */
    private int $expected = \PGSQL_TRANSACTION_IDLE;
    /** @var list<string> prepared statements dropped without close(), deallocated when possible */
    private array $orphans = [];

    public function __construct(public readonly Link $link)
    {
    }

    /** Simple protocol: no parameters, any number of statements; the last one's result. */
    public function query(string $sql, string $shownSql): PgResult
    {
        $handle = $this->ready();

        return $this->complete($handle, @\pg_send_query($handle, $sql), $shownSql);
    }

    /** @param list<int|string|null> $values */
    public function queryParams(string $sql, array $values, string $shownSql): PgResult
    {
        $handle = $this->ready();

        return $this->complete($handle, @\pg_send_query_params($handle, $sql, $values), $shownSql);
    }

    public function prepare(string $name, string $sql, string $shownSql): void
    {
        $handle = $this->ready();
        $this->complete($handle, @\pg_send_prepare($handle, $name, $sql), $shownSql);
    }

    /** @param list<int|string|null> $values */
    public function execute(string $name, array $values, string $shownSql): PgResult
    {
        $handle = $this->ready();

        return $this->complete($handle, @\pg_send_execute($handle, $name, $values), $shownSql);
    }

    /**
     * Sends $sql (simple protocol) without waiting for its results, which are read before
     * the next command, or by isAlive()/transactionStatus() once they are in; commands
     * dispatched meanwhile queue up. For cleanup that must not suspend (a generator being
     * destroyed). $statusAfter: the transaction status it leaves (null: unchanged).
     */
    public function dispatch(string $sql, ?int $statusAfter = null): void
    {
        if (!$this->link->isOpen()) {
            return;
        }
        $this->expected = $statusAfter ?? ($this->pending ? $this->expected : \pg_transaction_status($this->link->handle()));
        $this->queue[] = $sql;
        if (!$this->pending && !$this->link->isWaiting()) {
            $this->sendQueued();
        }
    }

    /** A prepared statement nobody will close: DEALLOCATEd after a later command outside a transaction. */
    public function forget(string $statement): void
    {
        if ($this->link->isOpen()) {
            $this->orphans[] = $statement;
        }
    }

    /** PGSQL_TRANSACTION_IDLE, _INTRANS, _INERROR, _ACTIVE (a command in flight) or _UNKNOWN (dead). */
    public function transactionStatus(): int
    {
        if (!$this->link->isOpen()) {
            return \PGSQL_TRANSACTION_UNKNOWN;
        }
        if ($this->pending) {
            $this->drainNow();
            if ($this->pending) {
                return $this->expected;
            }
        }

        return $this->link->isOpen() ? \pg_transaction_status($this->link->handle()) : \PGSQL_TRANSACTION_UNKNOWN;
    }

    /** Open and in sync, as far as can be told without a round trip. */
    public function isAlive(): bool
    {
        if ($this->pending) {
            $this->drainNow(); // busy a moment ago: no need to peek

            return $this->link->isOpen();
        }

        return $this->link->isWaiting() || $this->link->peek();
    }

    /** Closes: gracefully when idle, by aborting when a command is in flight or pending. */
    public function close(): void
    {
        if ($this->pending || $this->link->isWaiting()) {
            $this->link->abort('it was closed while a command was in flight');
        }
        $this->link->close();
    }

    public function __destruct()
    {
        $this->close();
    }

    private function ready(): PgConnection
    {
        if ($this->pending) {
            $this->drainPending();
        }
        $handle = $this->link->handle();
        $this->link->socket()->nonblocking();

        return $handle;
    }

    private function complete(PgConnection $handle, int|bool $sent, string $shownSql): PgResult
    {
        if ($sent === false) {
            throw $this->link->lost(\pg_last_error($handle));
        }
        try {
            if ($sent === 0) {
                $this->flush($handle);
            }
            $this->link->socket()->wait(false, true);
            [$result, $error] = $this->collect($handle);
        } catch (ConnectionException $e) {
            throw $e;
        } catch (Throwable $e) {
            $this->link->abort('a command was interrupted by ' . $e::class . ' (' . $e->getMessage() . ')');
            throw $e;
        }
        $this->link->transaction = \pg_transaction_status($handle);
        if ($this->orphans !== [] && $this->link->transaction === \PGSQL_TRANSACTION_IDLE) {
            foreach ($this->orphans as $statement) {
                $this->queue[] = "DEALLOCATE {$statement}";
            }
            $this->orphans = [];
        }
        if ($this->queue !== []) {
            $this->expected = \pg_transaction_status($handle);
            $this->sendQueued();
        }
        if ($error !== null) {
            throw Failure::query($error, $shownSql);
        }

        return $result ?? throw $this->link->lost('the server sent no result');
    }

    /**
     * Reads results until pg_get_result() says there are no more; keeps the last success
     * and the first error.
     *
     * @return array{PgResult|null, PgResult|null}
     */
    private function collect(PgConnection $handle): array
    {
        $last = null;
        $error = null;
        while (true) {
            if (@\pg_connection_busy($handle)) {
                if (\pg_connection_status($handle) === \PGSQL_CONNECTION_BAD) {
                    break;
                }
                $this->link->socket()->wait(false, true);
                continue;
            }
            $result = \pg_get_result($handle);
            if ($result === false) {
                break;
            }
            $status = \pg_result_status($result);
            if ($status === \PGSQL_TUPLES_OK || $status === \PGSQL_COMMAND_OK || $status === \PGSQL_EMPTY_QUERY) {
                $last = $result;
            } elseif ($status === \PGSQL_COPY_IN || $status === \PGSQL_COPY_OUT) {
                throw new DatabaseError(
                    'COPY … FROM STDIN and COPY … TO STDOUT are not supported by this client (the connection was closed); '
                    . 'use INSERT, or COPY with a server-side file',
                );
            } else {
                $error ??= $result;
            }
        }
        \pg_last_notice($handle, \PGSQL_NOTICE_CLEAR); // ext-pgsql keeps every notice otherwise: a leak in a resident worker
        if (\pg_connection_status($handle) === \PGSQL_CONNECTION_BAD) {
            throw $this->link->lost($error !== null ? Failure::text($error) : \pg_last_error($handle));
        }

        return [$last, $error];
    }

    private function flush(PgConnection $handle): void
    {
        while (($flushed = @\pg_flush($handle)) === 0) {
            $this->link->socket()->wait(true);
        }
        if ($flushed === false) {
            throw $this->link->lost(\pg_last_error($handle));
        }
        $this->unflushed = false;
    }

    private function sendQueued(): void
    {
        $handle = $this->link->handle();
        $sql = \array_shift($this->queue);
        \assert($sql !== null);
        $this->link->socket()->nonblocking();
        $sent = @\pg_send_query($handle, $sql);
        if ($sent === false) {
            throw $this->link->lost(\pg_last_error($handle));
        }
        $this->pending = true;
        $this->unflushed = $sent === 0;
    }

    /** Reads the results of dispatched commands, suspending as needed; their errors do not matter. */
    private function drainPending(): void
    {
        try {
            while ($this->pending) {
                $handle = $this->link->handle();
                if ($this->unflushed) {
                    $this->flush($handle);
                }
                $this->collect($handle);
                $this->pending = false;
                if ($this->queue !== []) {
                    $this->sendQueued();
                }
            }
        } catch (ConnectionException $e) {
            throw $e;
        } catch (Throwable $e) {
            $this->link->abort('reading the results of a cleanup was interrupted by ' . $e::class);
            throw $e;
        }
    }

    /** Reads the results of dispatched commands as far as they are in, without waiting. */
    private function drainNow(): void
    {
        try {
            while ($this->pending && $this->link->isOpen()) {
                $handle = $this->link->handle();
                if ($this->unflushed && ($flushed = @\pg_flush($handle)) !== true) {
                    if ($flushed === false) {
                        $this->link->lost(\pg_last_error($handle), false);
                    }

                    return;
                }
                $this->unflushed = false;
                $done = false;
                while (!$done && !@\pg_connection_busy($handle)) {
                    $done = \pg_get_result($handle) === false;
                }
                if (\pg_connection_status($handle) === \PGSQL_CONNECTION_BAD) {
                    $this->link->lost(\pg_last_error($handle), false);
                } elseif ($done) {
                    \pg_last_notice($handle, \PGSQL_NOTICE_CLEAR);
                    $this->pending = false;
                    if ($this->queue !== []) {
                        $this->sendQueued();
                    }
                } else {
                    return;
                }
            }
        } catch (ConnectionException) {
            // The link is dead; callers see it through isOpen().
        }
    }
}
