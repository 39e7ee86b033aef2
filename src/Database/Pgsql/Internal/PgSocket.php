<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\Suspension;
use Petrel\Socket\Internal\Readiness;
use Throwable;

/**
 * The socket of a libpq connection as the event loop sees it (pg_socket()'s stream, whose
 * descriptor ext-pgsql looks up on each use, so it follows libpq through reconnects during
 * the handshake), and the callback-to-fiber bridge on it: wait() watches the socket and
 * suspends, or waits in place when the loop has nothing else to do.
 *
 * During the handshake each wait has a watcher of its own (the descriptor may change),
 * cancelled in wait()'s finally; so do waits to write (a flush of a large command, rare).
 * Once settle() says the connection is up, reads wait through a Socket\Internal\Readiness
 * on the stream, as a StreamSocket's do: one watcher for the connection's life (a watcher
 * made per wait would cost the loop a descriptor passed and closed and two epoll_ctl() per
 * query), kept enabled and unreferenced between waits (an idle pooled connection does not
 * keep the loop running), a reply waited for in place when the loop has nothing else to
 * do, and bytes that come with nobody waiting (a notice, the server closing) disabling it
 * until the next wait: libpq reads them with the next command. release() cancels it
 * before the stream is closed.
 *
 * @internal
 */
final class PgSocket
{
    private ?Suspension $suspension = null;
    /** The watcher of the wait in progress (handshake, write). */
    private ?int $watcher = null;
    /** The reads' loop side once settled; null before, and after release(). */
    private ?Readiness $readiness = null;

    /** @param resource $stream */
    public function __construct(private readonly mixed $stream)
    {
    }

    /** The handshake is done: the descriptor stays the same from now on. */
    public function settle(): void
    {
        $this->readiness ??= new Readiness($this->stream);
    }

    /**
     * Suspends the calling coroutine until the socket is readable (or writable).
     *
     * $soon: bytes are due soon (the reply to a query just sent): once settled, wait for
     * them in place when the loop has nothing else to do (Scheduler::awaitReadable(), as
     * the MySQL and Redis clients do), without a suspension, a fiber switch and a loop turn.
     * Not for LISTEN's wait, which may last for long.
     */
    public function wait(bool $writable, bool $soon = false): void
    {
        if (!$writable && $this->readiness !== null) {
            $this->readiness->waitReadable($soon);

            return;
        }
        $driver = Scheduler::get()->driver;
        $suspension = $this->suspension = Scheduler::get()->suspension();
        $resume = static function () use ($suspension): void {
            $suspension->resume();
        };
        $id = $this->watcher = $writable ? $driver->onWritable($this->stream, $resume) : $driver->onReadable($this->stream, $resume);
        try {
            $suspension->suspend();
        } finally {
            $this->stopWatching($id);
            $this->suspension = null;
        }
    }

    public function isWaiting(): bool
    {
        return $this->suspension !== null || $this->readiness?->reader !== null;
    }

    /** Wakes the coroutine in wait(), if any, by throwing $error there. */
    public function interrupt(Throwable $error): void
    {
        if ($this->watcher !== null) {
            $this->stopWatching($this->watcher);
        }
        $suspension = $this->suspension;
        $this->suspension = null;
        $suspension?->throw($error);
        $this->readiness?->reader?->throw($error);
    }

    /** Wakes the coroutine in wait(), if any, as if the socket were ready. */
    public function wake(): void
    {
        if ($this->watcher !== null) {
            $this->stopWatching($this->watcher);
        }
        $suspension = $this->suspension;
        $this->suspension = null;
        $suspension?->resume();
        $this->readiness?->reader?->resume();
    }

    /** Cancels the reads' watcher: before pg_close() closes the stream (Driver requires it). */
    public function release(): void
    {
        $this->readiness?->cancel();
        $this->readiness = null;
    }

    /** Switches libpq's nonblocking mode on (ext-pgsql passes this flag straight to PQsetnonblocking()). */
    public function nonblocking(): void
    {
        \stream_set_blocking($this->stream, true);
    }

    /**
     * shutdown(2) both directions, so that libpq sees EOF at once instead of waiting for a
     * running query (pg_close() drains pending results), and the server sees the client go.
     * Only while libpq still has a descriptor.
     */
    public function shutdown(): void
    {
        if (!\function_exists('socket_import_stream')) {
            return;
        }
        $socket = @\socket_import_stream($this->stream);
        if ($socket instanceof \Socket) {
            @\socket_shutdown($socket, 2);
        }
    }

    private function stopWatching(int $id): void
    {
        Scheduler::get()->driver->cancel($id);
        if ($this->watcher === $id) {
            $this->watcher = null;
        }
    }
}
