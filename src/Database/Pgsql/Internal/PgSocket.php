<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\Suspension;
use Throwable;

/**
 * The socket of a libpq connection as the event loop sees it (pg_socket()'s stream, whose
 * descriptor ext-pgsql looks up on each use, so it follows libpq through reconnects during
 * the handshake), and the callback-to-fiber bridge on it: wait() registers a watcher,
 * suspends, and cancels the watcher in finally.
 *
 * @internal
 */
final class PgSocket
{
    private ?Suspension $suspension = null;
    private ?int $watcher = null;

    /** @param resource $stream */
    public function __construct(private readonly mixed $stream)
    {
    }

    /** Suspends the calling coroutine until the socket is readable (or writable). */
    public function wait(bool $writable): void
    {
        $scheduler = Scheduler::get();
        $driver = $scheduler->driver;
        $suspension = $scheduler->suspension();
        $resume = static function () use ($suspension): void {
            $suspension->resume();
        };
        $id = $writable ? $driver->onWritable($this->stream, $resume) : $driver->onReadable($this->stream, $resume);
        $this->watcher = $id;
        $this->suspension = $suspension;
        try {
            $suspension->suspend();
        } finally {
            $driver->cancel($id);
            $this->watcher = null;
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
            Scheduler::get()->driver->cancel($this->watcher);
            $this->watcher = null;
        }
        $suspension = $this->suspension;
        $this->suspension = null;
        $suspension?->throw($error);
    }

    /** Wakes the coroutine in wait(), if any, as if the socket were ready. */
    public function wake(): void
    {
        if ($this->watcher !== null) {
            Scheduler::get()->driver->cancel($this->watcher);
            $this->watcher = null;
        }
        $suspension = $this->suspension;
        $this->suspension = null;
        $suspension?->resume();
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
}
