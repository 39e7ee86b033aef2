<?php

declare(strict_types=1);

namespace Petrel\Loop\Internal;

/**
 * What tells one driver from another: how it watches streams and waits for them
 * (EpollStreams: epoll through FFI; SelectStreams: stream_select()). WatcherLoop does all
 * the rest and tells it about readable and writable watchers only; a watcher is attached
 * once, enabled and disabled any number of times, and detached (already disabled) when
 * cancelled.
 *
 * @internal
 */
interface StreamWaiter
{
    /** A readable or writable watcher was registered; enable() follows. */
    public function attach(Watcher $watcher): void;

    /** A readable or writable watcher was cancelled (and disabled before). */
    public function detach(Watcher $watcher): void;

    public function enable(Watcher $watcher): void;

    public function disable(Watcher $watcher): void;

    /**
     * The signals' self-pipe (SignalDispatcher::pipe()), handed over when a signal watcher
     * is added: from the next wait() on, a signal wakes it. Null is ignored.
     *
     * @param resource|null $pipe
     */
    public function useSignalPipe(mixed $pipe): void;

    /**
     * When run() starts: the safety net for streams closed while still watched, where the
     * waiter has one (throws LoopError if such a stream has an enabled watcher).
     */
    public function sweep(): void;

    /**
     * Steps 2 to 4 of a tick (see Driver): waits until $until (monotonic seconds, as
     * hrtime(true) * 1e-9; INF: no limit; a time past: not at all) or until a stream is
     * ready or a signal arrives, dispatches the signals that arrived, then runs the
     * callbacks of ready streams, readable ones first. Called once a tick: the hot path.
     */
    public function wait(float $until, SignalDispatcher $signals): void;

    /**
     * Driver::awaitReadable() once WatcherLoop found nothing queued: waits until $watcher's
     * stream is readable, or $until, or anything else is ready; true if its stream alone is
     * readable (a waiter that cannot tell may return false at once).
     */
    public function awaitReadable(Watcher $watcher, float $until, SignalDispatcher $signals): bool;

    /** The detail of a readable or writable watcher for Driver::watchers(). */
    public function describe(Watcher $watcher): string;
}
