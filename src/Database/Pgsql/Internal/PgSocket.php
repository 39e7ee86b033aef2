<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\Suspension;
use Throwable;

/**
 * The socket of a libpq connection as the event loop sees it (pg_socket()'s stream, whose
 * descriptor ext-pgsql looks up on each use, so it follows libpq through reconnects during
 * the handshake), and the callback-to-fiber bridge on it: wait() watches the socket and
 * suspends, or waits in place when the loop has nothing else to do.
 *
 * During the handshake each wait has a watcher of its own (the descriptor may change),
 * cancelled in wait()'s finally. Once settle() says the connection is up, reads use one
 * watcher for the connection's life: a watcher made per wait would cost the loop a
 * descriptor passed and closed and two epoll_ctl() per query. It stays enabled between
 * waits, unreferenced (an idle connection does not keep the loop running), so a query
 * waited for in place makes no call on the loop but the wait; referenced only while a
 * coroutine is suspended on it. Bytes that come with nobody waiting (a notice, the server
 * closing) disable it until the next wait: libpq reads them with the next command.
 * release() cancels it before the stream is closed.
 *
 * @internal
 */
final class PgSocket
{
    private ?Suspension $suspension = null;
    /** The watcher of the wait in progress. */
    private ?int $watcher = null;
    /** The readable watcher kept between waits once settled; null before, and after release(). */
    private ?int $readWatcher = null;
    /** Whether $readWatcher is enabled. */
    private bool $readWatched = false;
    private bool $settled = false;

    /** @param resource $stream */
    public function __construct(private readonly mixed $stream)
    {
    }

    /** The handshake is done: the descriptor stays the same from now on. */
    public function settle(): void
    {
        $this->settled = true;
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
        $scheduler = Scheduler::get();
        $driver = $scheduler->driver;
        if (!$writable && $this->settled) {
            if ($this->readWatcher === null) {
                // wakeLast(): the callback does nothing after the wake, so the next wait of
                // the coroutine it resumes may be in place.
                $this->readWatcher = $driver->onReadable($this->stream, function (int $id, mixed $stream, bool $more) use ($scheduler, $driver): void {
                    if ($this->suspension !== null && $this->watcher === $id) {
                        $scheduler->wakeLast($this->suspension, $more);
                    } else { // nobody waits to read (perhaps a flush waits to write)
                        $this->readWatched = false;
                        $driver->disable($id);
                    }
                });
                $driver->unreference($this->readWatcher);
            } elseif (!$this->readWatched) {
                $driver->enable($this->readWatcher);
            }
            $this->readWatched = true;
            $id = $this->readWatcher;
            if ($soon && $scheduler->awaitReadable($id)) {
                return;
            }
            $driver->reference($id);
            $suspension = $scheduler->suspension();
        } else {
            $suspension = $scheduler->suspension();
            $resume = static function () use ($suspension): void {
                $suspension->resume();
            };
            $id = $writable ? $driver->onWritable($this->stream, $resume) : $driver->onReadable($this->stream, $resume);
        }
        $this->watcher = $id;
        $this->suspension = $suspension;
        try {
            $suspension->suspend();
        } finally {
            $this->stopWatching($id);
            $this->suspension = null;
        }
    }

    public function isWaiting(): bool
    {
        return $this->suspension !== null;
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
    }

    /** Cancels the kept watcher: before pg_close() closes the stream (Driver requires it). */
    public function release(): void
    {
        if ($this->readWatcher !== null) {
            Scheduler::get()->driver->cancel($this->readWatcher);
            $this->readWatcher = null;
            $this->readWatched = false;
        }
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

    /** The kept watcher is unreferenced (a no-op once cancelled); one made for a wait is cancelled. */
    private function stopWatching(int $id): void
    {
        $driver = Scheduler::get()->driver;
        if ($id === $this->readWatcher) {
            $driver->unreference($id);
        } else {
            $driver->cancel($id);
        }
        if ($this->watcher === $id) {
            $this->watcher = null;
        }
    }
}
