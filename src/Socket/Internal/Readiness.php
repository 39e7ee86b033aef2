<?php

declare(strict_types=1);

namespace Petrel\Socket\Internal;

use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\Suspension;
use Petrel\Loop\Driver;

/**
 * The loop side of a StreamSocket (and of a PostgreSQL connection's socket once connected,
 * Database\Pgsql\Internal\PgSocket): waiting until its stream is readable or writable.
 *
 * Each direction has one loop watcher, created on the first wait and then only enabled and
 * disabled, so a busy connection creates no garbage per wait. The read watcher stays
 * enabled after a wait and is only unreferenced: a client (Redis, MySQL) waits once per
 * round trip, and reference()/unreference() cost less than enable()/disable() (measured:
 * ~4,900 instructions less per Redis GET), while an idle connection (a pooled one) still
 * keeps no loop running. Bytes arriving while nobody reads make its callback disable it,
 * so the loop never spins on them. The watchers' callbacks hold this object, never the
 * socket: a socket nobody references is still closed by its destructor, which cancels them.
 *
 * @internal
 */
final class Readiness
{
    private ?int $readWatcher = null;
    /** Whether $readWatcher is enabled (it outlives a wait; see the class comment). */
    private bool $readWatched = false;
    private bool $keepReadWatcher = false;
    /** Whether $readWatcher is referenced: during a wait, and always with keepReadWatcher. */
    private bool $readReferenced = false;
    private ?int $writeWatcher = null;
    /**
     * The coroutine waiting to read. Public so that the socket's read path checks it
     * without a call; only this class sets it.
     */
    public ?Suspension $reader = null;
    private ?Suspension $writer = null;
    /** The suspension of the last read wait, reused by the next (Scheduler::suspensionAgain()). */
    private ?Suspension $readSuspension = null;
    /**
     * Set when a caller learnt of readability without reading (the HTTP server's
     * keep-alive wait, callWhenReadable()): the socket's next read that comes back empty
     * is EOF, with no second wait. The socket's read clears it.
     */
    public bool $polled = false;
    /** cancel() was called: the socket is closed, nothing will wake a wait. */
    public bool $cancelled = false;
    /**
     * How many times a read had to wait (Http\Internal\ClientSocket::readWaits(), for
     * its tests). Only this class writes it.
     */
    public int $readWaits = 0;
    /**
     * What callWhenReadable() asked to run once the stream is readable.
     *
     * @var (\Closure(bool): void)|null
     */
    private ?\Closure $onReadable = null;
    /** Whether $readWatcher's callback is readable(), the one that knows of $onReadable. */
    private bool $callsBack = false;
    private readonly Scheduler $scheduler;
    private readonly Driver $driver;

    /** @param resource $stream */
    public function __construct(private readonly mixed $stream)
    {
        $this->scheduler = Scheduler::get();
        $this->driver = $this->scheduler->driver;
    }

    /**
     * For a connection that reads again and again for its whole life (the HTTP server's):
     * the read watcher stays referenced between reads instead of being unreferenced and
     * referenced around each one — two loop calls less per request. If bytes arrive while
     * nobody reads (a client pipelining while its request runs), the watcher's first call
     * disables it, so the loop never spins. Not for sockets that idle between uses (a
     * pooled database connection): a referenced watcher keeps the loop running.
     */
    public function keepReadWatcher(): void
    {
        $this->keepReadWatcher = true;
    }

    /**
     * Once per read that finds nothing (per request on a keep-alive connection): one
     * suspension reused from wait to wait, and the Scheduler's own suspend() called
     * directly, what Suspension::suspend() would do with a call more.
     *
     * $soon: bytes are due soon (the reply to a request just written): wait for them in
     * place when the loop has nothing else to do (Scheduler::awaitReadable()). Not for a
     * server's connection, whose client may think for long while other connections talk.
     */
    public function waitReadable(bool $soon = false): void
    {
        ++$this->readWaits;
        if ($this->readWatcher === null) {
            // wakeLast(): the coroutine it resumes may wait for its next reply in place.
            $this->readWatcher = $this->driver->onReadable($this->stream, function (int $id, mixed $stream, bool $more): void {
                if ($this->reader !== null) {
                    $this->scheduler->wakeLast($this->reader, $more);
                } else {
                    $this->readWatched = false; // bytes nobody waits for yet: see the class comment
                    $this->driver->disable($id);
                }
            });
            $this->readReferenced = true;
        } elseif (!$this->readWatched) {
            $this->driver->enable($this->readWatcher);
        }
        $this->readWatched = true;
        if ($soon && $this->scheduler->awaitReadable($this->readWatcher)) {
            if ($this->readReferenced && !$this->keepReadWatcher) {
                $this->readReferenced = false;
                $this->driver->unreference($this->readWatcher);
            }

            return;
        }
        if (!$this->readReferenced) {
            $this->readReferenced = true;
            $this->driver->reference($this->readWatcher);
        }
        $suspension = $this->reader = $this->readSuspension = $this->scheduler->suspensionAgain($this->readSuspension);
        try {
            $this->scheduler->suspend($suspension, null);
        } finally {
            $this->reader = null;
            if (!$this->keepReadWatcher) {
                $this->readReferenced = false;
                $this->driver->unreference($this->readWatcher);
            }
        }
    }

    public function waitWritable(): void
    {
        $suspension = $this->scheduler->suspension();
        if ($this->writeWatcher === null) {
            $this->writeWatcher = $this->driver->onWritable($this->stream, function (): void {
                $this->writer?->resume();
            });
        } else {
            $this->driver->enable($this->writeWatcher);
        }
        $this->writer = $suspension;
        try {
            $suspension->suspend();
        } finally {
            $this->writer = null;
            $this->driver->disable($this->writeWatcher);
        }
    }

    /**
     * Cancels both watchers (their ids stay set: cancel() made them inert, and disable() on
     * them is a no-op) and returns whoever waits, to be told why.
     *
     * @return list<Suspension>
     */
    public function cancel(): array
    {
        $this->cancelled = true;
        foreach ([$this->readWatcher, $this->writeWatcher] as $watcher) {
            if ($watcher !== null) {
                $this->driver->cancel($watcher);
            }
        }

        return \array_values(\array_filter([$this->reader, $this->writer]));
    }

    /**
     * For a server connection that waits for its next request with no coroutine (no fiber)
     * held: $callback runs once, from the loop, when the stream is readable, and the next
     * read is then known not to block (the polled flag). It gets the loop's hint whether
     * other stream callbacks follow in this tick (Loop\Driver's $more). Null forgets it (a
     * closed socket). The read watcher stays referenced meanwhile, as during a wait. The
     * first call replaces a watcher waitReadable() made by one whose callback knows of
     * $callback.
     *
     * @param (\Closure(bool): void)|null $callback
     */
    public function callWhenReadable(?\Closure $callback): void
    {
        $this->onReadable = $callback;
        if ($callback === null || $this->cancelled) {
            return;
        }
        if (!$this->callsBack || $this->readWatcher === null) {
            if ($this->readWatcher !== null) {
                $this->driver->cancel($this->readWatcher);
            }
            $this->readWatcher = $this->driver->onReadable($this->stream, $this->readable(...));
            $this->callsBack = true;
        } else {
            if (!$this->readWatched) {
                $this->driver->enable($this->readWatcher);
            }
            if (!$this->readReferenced) {
                $this->driver->reference($this->readWatcher);
            }
        }
        $this->readWatched = $this->readReferenced = true;
    }

    /**
     * The read watcher's callback once callWhenReadable() was called: waitReadable()'s, plus
     * $onReadable, which is passed the loop's $more hint (see Loop\Driver).
     */
    private function readable(int $id, mixed $stream, bool $more = true): void
    {
        if ($this->reader !== null) {
            $this->scheduler->wake($this->reader, null, null);
        } elseif ($this->onReadable !== null) {
            $callback = $this->onReadable;
            $this->onReadable = null;
            $this->polled = true;
            $callback($more);
        } else {
            $this->readWatched = false; // bytes nobody waits for yet: see the class comment
            $this->driver->disable($id);
        }
    }
}
