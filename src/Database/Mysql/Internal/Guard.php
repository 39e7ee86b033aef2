<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\Coroutine;
use Petrel\Coroutine\Scheduler;
use Petrel\Database\ConnectionException;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\DatabaseError;
use Petrel\Database\Mysql\ProtocolException;
use Petrel\Socket\SocketException;
use Throwable;

/**
 * Who may use a MySQL connection, and whether it is still in step with the server.
 *
 * One command at a time: enter() claims the connection for the running coroutine (a second
 * one gets a DatabaseError naming the first), leave() frees it. A failure mid-command
 * (fail()) leaves the protocol out of step: the socket is closed and the connection stays
 * unusable, with the reason kept for later calls; a command cut short by a deadline or a
 * cancellation also gets its statement killed on the server (QueryKiller).
 *
 * @internal
 */
final class Guard
{
    /** Id of the coroutine running a command (0 = the main context), null when free. */
    public ?int $busy = null;
    /** A stream() is being iterated. */
    public bool $streaming = false;
    /** Why the connection cannot be used any more; null while it can. */
    public ?string $unusable = null;
    /** The coroutine sending KILL QUERY after an interrupted command, if any. */
    public ?Coroutine $killer = null;
    private readonly Scheduler $scheduler;

    public function __construct(
        private readonly Link $link,
        private readonly DatabaseConfig $config,
        private readonly int $threadId,
        private readonly bool $killOnCancel,
    ) {
        $this->scheduler = Scheduler::get();
    }

    /** @throws DatabaseError when busy; ConnectionException when unusable */
    public function enter(): void
    {
        if ($this->busy !== null || $this->unusable !== null) {
            $this->refuse();
        }
        $this->busy = $this->scheduler->currentOrMain()->id;
    }

    /**
     * Marks the connection unusable after a failure mid-command, closes the socket, and
     * returns what to throw: deadlines and cancellations as they are, lost connections and
     * protocol errors as ConnectionException.
     */
    public function fail(Throwable $e): Throwable
    {
        if ($e instanceof SocketException || $e instanceof ProtocolException) {
            $what = $e instanceof ProtocolException ? 'protocol error: ' : '';
            $e = new ConnectionException("Lost connection to MySQL at {$this->link->where}: {$what}{$e->getMessage()}", 0, $e);
        }
        if ($this->unusable !== null) {
            return $e;
        }
        $this->unusable = $e instanceof CancelledException
            ? "a command was interrupted ({$e->getMessage()}), leaving the protocol out of step"
            : $e->getMessage();
        $this->link->socket->close();
        if ($e instanceof CancelledException && $this->killOnCancel) {
            try {
                $this->killer = QueryKiller::kill($this->config, $this->threadId);
            } catch (Throwable) {
                // Best effort (a destructor cannot start a coroutine on PHP 8.2).
            }
        }

        return $e;
    }

    private function refuse(): never
    {
        if ($this->unusable !== null) {
            throw new ConnectionException("The MySQL connection to {$this->link->where} is unusable: {$this->unusable}");
        }
        if ($this->streaming && $this->busy === $this->scheduler->currentOrMain()->id) {
            throw new DatabaseError('MySQL connection is busy: this coroutine is iterating a stream() on it; finish or abandon the iteration first');
        }
        throw new DatabaseError(\sprintf(
            'MySQL connection already in use by coroutine #%d%s; use a Pool',
            $this->busy,
            $this->streaming ? ' (iterating a stream())' : '',
        ));
    }
}
