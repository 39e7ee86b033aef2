<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Petrel\Database\ConnectionException;
use PgSql\Connection as PgConnection;

/**
 * An open libpq connection and its socket, and how it ends. Once it failed, was
 * interrupted or closed it stays dead, and handle() throws a ConnectionException saying why.
 *
 * abort() never waits: it shuts the socket down and lets libpq read the EOF before
 * pg_close(), because pg_close() drains pending results and would otherwise wait for a
 * running query to finish (or, in COPY state, loop forever).
 *
 * @internal
 */
final class Link
{
    private ?PgConnection $handle;
    private ?PgSocket $socket;
    private ?string $failure = null;
    /** The transaction status after the last command (Exchange keeps it up to date). */
    public int $transaction = \PGSQL_TRANSACTION_IDLE;
    /** Lost inside a transaction, and no exception has said so yet. */
    private bool $transactionLostUnreported = false;

    private function __construct(public readonly string $where, private readonly ?string $password, string $conninfo, float $timeout)
    {
        [$this->handle, $this->socket] = Handshake::connect($conninfo, $where, $timeout, $password);
    }

    /** Connects within $timeout seconds. @throws ConnectionException */
    public static function connect(string $conninfo, string $where, float $timeout, ?string $password): self
    {
        return new self($where, $password, $conninfo, $timeout);
    }

    /** @throws ConnectionException if the link is dead */
    public function handle(): PgConnection
    {
        return $this->handle ?? throw $this->unusable();
    }

    /** The socket, while the connection is open (after pg_close() its stream must not be touched). */
    public function socket(): PgSocket
    {
        return $this->socket ?? throw $this->unusable();
    }

    public function isOpen(): bool
    {
        return $this->handle !== null;
    }

    public function isWaiting(): bool
    {
        return $this->socket !== null && $this->socket->isWaiting();
    }

    /** Wakes a coroutine waiting on the socket, as if it were ready (Listener::stop()). */
    public function wake(): void
    {
        $this->socket?->wake();
    }

    /**
     * Whether the server is still there, without a round trip: reads what it sent unprompted.
     * One that hung up (terminate, restart) left a FATAL message and EOF: the first read may
     * take only the message, the second sees the EOF. Call only when no command is outstanding.
     */
    public function peek(): bool
    {
        $handle = $this->handle;
        if ($handle === null) {
            return false;
        }
        for ($read = 0; $read < 2; $read++) {
            if (!\pg_consume_input($handle) || \pg_connection_status($handle) !== \PGSQL_CONNECTION_OK) {
                $this->lost(\pg_last_error($handle), false);

                return false;
            }
        }
        return true;
    }

    /** The server's major version (from the handshake, no round trip); 0 if unknown. */
    public function serverVersion(): int
    {
        $version = $this->handle === null ? false : \pg_parameter_status($this->handle, 'server_version');

        return \is_string($version) ? (int) $version : 0;
    }

    /** Closes an idle connection (pg_close() sends Terminate; nothing to drain). */
    public function close(): void
    {
        $handle = $this->handle;
        if ($handle === null) {
            return;
        }
        $this->failure ??= 'it was closed';
        $this->handle = null;
        $this->socket?->release();
        $this->socket = null;
        \pg_close($handle);
    }

    /**
     * Tears the connection down without waiting for anything and marks it dead with
     * $reason. A coroutine waiting on the socket is woken with a ConnectionException. A
     * transaction open on it is lost: the next exception this link makes says so (the
     * caller's own, after a deadline or a cancellation, cannot).
     *
     * @return bool whether a transaction was lost with it
     */
    public function abort(string $reason): bool
    {
        $lost = $this->handle !== null && $this->failure === null && $this->transaction !== \PGSQL_TRANSACTION_IDLE;
        if ($lost) {
            $reason .= ConnectionException::TRANSACTION_LOST;
            $this->transactionLostUnreported = true;
        }
        $this->failure ??= $reason;
        $handle = $this->handle;
        $socket = $this->socket;
        if ($handle === null || $socket === null) {
            return $lost;
        }
        $this->handle = null;
        $this->socket = null;
        $socket->interrupt(new ConnectionException("PostgreSQL connection to {$this->where} closed: {$reason}"));
        $socket->release();
        if (\pg_connection_status($handle) === \PGSQL_CONNECTION_OK) {
            // After the shutdown libpq reads EOF and marks the connection bad, so pg_close()
            // stops draining at once (in COPY state it would loop forever).
            $socket->shutdown();
            \pg_consume_input($handle);
        }
        \pg_close($handle);

        return $lost;
    }

    /**
     * Aborts with "lost" and returns the exception to throw ($thrown: false when nobody
     * will see it, so a lost transaction is told by the next exception instead).
     */
    public function lost(string $message, bool $thrown = true): ConnectionException
    {
        $message = Failure::clean($message, $this->password);
        if ($this->abort("the connection was lost ({$message})")) {
            $message .= ConnectionException::TRANSACTION_LOST;
        }
        $e = new ConnectionException("PostgreSQL connection to {$this->where} lost: {$message}");

        return $thrown ? $this->report($e) : $e;
    }

    public function unusable(): ConnectionException
    {
        return $this->report(new ConnectionException("PostgreSQL connection to {$this->where} is unusable: " . ($this->failure ?? 'it is closed')));
    }

    /**
     * The transaction lost with the connection has been told of (by the exception escaping
     * transaction()): later exceptions need not say so again.
     */
    public function transactionLossTold(): void
    {
        $this->transactionLostUnreported = false;
    }

    /** $e, flagged transactionLost if it is the first to tell of a lost transaction. */
    private function report(ConnectionException $e): ConnectionException
    {
        if (!$this->transactionLostUnreported) {
            return $e;
        }
        $this->transactionLostUnreported = false;

        return new ConnectionException($e->getMessage(), 0, null, true);
    }

    public function __destruct()
    {
        if ($this->isWaiting()) {
            $this->abort('it was destroyed');
        }
        $this->close();
    }
}
