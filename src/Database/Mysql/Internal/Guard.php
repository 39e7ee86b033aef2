<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\Coroutine;
use Petrel\Database\ConnectionException;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\DatabaseError;
use Petrel\Database\Mysql\ProtocolException;
use Petrel\Pool\ExclusiveUse;
use Petrel\Socket\SocketException;
use Throwable;

/**
 * Who may use a MySQL connection, and whether it is still in step with the server.
 *
 * One command at a time: enter() claims the connection for the running coroutine (a second
 * one gets a DatabaseError naming the first); the caller frees it with $guard->use->leave()
 * (Guard itself has no leave(): the claim lives in its ExclusiveUse). A failure mid-command
 * (fail()) leaves the protocol out of step: the socket is closed and the connection stays
 * unusable, with the reason kept for later calls; a command cut short by a deadline or a
 * cancellation also gets its statement killed on the server (QueryKiller). A transaction
 * open at the failure is lost with the connection: the exception thrown says so, or, when
 * that is the deadline's or cancellation's own (which the caller may catch and go on), the
 * next call's does, so no later statement of the transaction runs elsewhere unawares.
 *
 * @internal
 */
final class Guard
{
    /** Which coroutine is running a command, if any. */
    public readonly ExclusiveUse $use;
    /** A stream() is being iterated. */
    public bool $streaming = false;
    /** Why the connection cannot be used any more; null while it can. */
    public ?string $unusable = null;
    /** The coroutine sending KILL QUERY after an interrupted command, if any. */
    public ?Coroutine $killer = null;
    /** A transaction was lost with the connection, and no exception has said so yet. */
    private bool $transactionLostUnreported = false;

    public function __construct(
        private readonly Link $link,
        private readonly DatabaseConfig $config,
        private readonly int $threadId,
        private readonly bool $killOnCancel,
    ) {
        $this->use = new ExclusiveUse($this->conflict(...));
    }

    /** @throws DatabaseError when busy; ConnectionException when unusable */
    public function enter(): void
    {
        if ($this->unusable !== null) {
            $lost = $this->transactionLostUnreported;
            $this->transactionLostUnreported = false;

            throw new ConnectionException("The MySQL connection to {$this->link->where} is unusable: {$this->unusable}", 0, null, $lost);
        }
        $this->use->enter();
    }

    /**
     * Marks the connection unusable after a failure mid-command, closes the socket, and
     * returns what to throw: deadlines and cancellations as they are (the next call then
     * tells of a transaction that was open), lost connections and protocol errors as
     * ConnectionException, saying so when a transaction was open (the server rolls it back).
     * A command cut short is stopped on the server with KILL QUERY (if the options ask for
     * it) unless $killQuery says there is nothing to stop.
     */
    public function fail(Throwable $e, bool $inTransaction = false, bool $killQuery = true): Throwable
    {
        if ($e instanceof SocketException || $e instanceof ProtocolException) {
            $what = $e instanceof ProtocolException ? 'protocol error: ' : '';
            $e = new ConnectionException("Lost connection to MySQL at {$this->link->where}: {$what}{$e->getMessage()}", 0, $e);
        }
        if ($this->unusable !== null) {
            return $e;
        }
        if ($inTransaction && $e instanceof ConnectionException) {
            $e = new ConnectionException($e->getMessage() . ConnectionException::TRANSACTION_LOST, 0, $e, true);
        }
        $this->unusable = $e instanceof CancelledException
            ? "a command was interrupted ({$e->getMessage()}), leaving the protocol out of step"
            : $e->getMessage();
        if ($inTransaction && !$e instanceof ConnectionException) {
            $this->unusable .= ConnectionException::TRANSACTION_LOST;
            $this->transactionLostUnreported = true;
        }
        $this->link->socket->close();
        if ($e instanceof CancelledException && $this->killOnCancel && $killQuery) {
            try {
                $this->killer = QueryKiller::kill($this->config, $this->threadId);
            } catch (Throwable) {
                // Best effort (a destructor cannot start a coroutine on PHP 8.2).
            }
        }

        return $e;
    }

    /**
     * The transaction lost with the connection has been told of: by the exception that
     * escapes transaction(), whose caller so knows it did not commit. The next call then
     * says the connection is unusable without claiming a transaction was lost (which
     * Database would take for a new failure of the caller's next unit of work).
     */
    public function transactionLossTold(): void
    {
        $this->transactionLostUnreported = false;
    }

    private function conflict(string $who, bool $caller): DatabaseError
    {
        if ($caller && $this->streaming) {
            return new DatabaseError('MySQL connection is busy: this coroutine is iterating a stream() on it; finish or abandon the iteration first');
        }

        return new DatabaseError("MySQL connection already in use by {$who}" . ($this->streaming ? ' (iterating a stream())' : '') . '; use a Pool');
    }
}
