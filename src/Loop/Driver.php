<?php

declare(strict_types=1);

namespace Petrel\Loop;

use Closure;

/**
 * An event loop: it waits for streams to become readable or writable, for timers to expire
 * and for signals, and calls back. It knows nothing of coroutines; the scheduler in
 * Petrel\Coroutine builds on it.
 *
 * Watchers. Every registration returns an integer watcher id, unique for the life of the
 * driver. A watcher is enabled when created; disable() keeps it registered but idle,
 * enable() re-arms it, cancel() drops it for good. Calling enable/disable/reference/
 * unreference with an id that was cancelled (or a one-shot that already ran) is a no-op, so
 * cleanup code in `finally` blocks never has to track whether a watcher already fired.
 *
 * References. A watcher is referenced when created. run() returns when no enabled,
 * referenced watcher remains (deferred callbacks always count), or when stop() is called.
 * unreference() a watcher that should not keep the loop alive (a background timer, a
 * signal handler).
 *
 * Callbacks receive the watcher id first: defer, delay and repeat get (int $id); readable
 * and writable get (int $id, resource $stream, bool $more); signals get (int $id, int $signal).
 * $more is a hint: false when, as far as the driver knows, no other stream callback runs
 * after this one in the tick's I/O phase. A callback that batches work over the streams
 * ready in one tick (a deferred callback to serve them all) may then do it at once. True
 * may be said when nothing follows; a wrong false costs only that batching.
 * An exception thrown by a callback stops the loop and propagates out of run(); the loop is
 * left consistent and run() may be called again.
 *
 * Tick order. Each tick of run():
 *   1. deferred callbacks queued before the tick started run, in order of queueing (those
 *      queued by them run in the next tick);
 *   2. the loop waits for I/O: not at all if deferred callbacks are pending, else until the
 *      next timer is due, or indefinitely if there is no timer;
 *   3. pending signals are dispatched;
 *   4. readable then writable callbacks of ready streams run;
 *   5. timers that are due run, earliest first (ties in order of creation); a repeating
 *      timer is re-armed relative to the time it was due, so it does not drift.
 * A watcher disabled or cancelled during a tick does not run later in that tick.
 */
interface Driver
{
    /** Runs $callback once, in the next tick, before timers and I/O. */
    public function defer(Closure $callback): int;

    /** Runs $callback once, after $seconds (≥ 0; INF: never; NaN is a LoopError). */
    public function delay(float $seconds, Closure $callback): int;

    /** Runs $callback every $interval seconds (> 0; INF: never; NaN is a LoopError) until cancelled. */
    public function repeat(float $interval, Closure $callback): int;

    /** Runs $callback each tick in which $stream is readable (or at EOF, or in error). */
    public function onReadable(mixed $stream, Closure $callback): int;

    /** Runs $callback each tick in which $stream is writable. */
    public function onWritable(mixed $stream, Closure $callback): int;

    /** Runs $callback each time signal $signal arrives (needs ext-pcntl). */
    public function onSignal(int $signal, Closure $callback): int;

    public function enable(int $id): void;

    public function disable(int $id): void;

    public function cancel(int $id): void;

    public function reference(int $id): void;

    public function unreference(int $id): void;

    /** Runs ticks until no enabled referenced watcher remains or stop() is called. */
    public function run(): void;

    /**
     * Waits here, running no callback, until the stream of the enabled readable watcher $id
     * is readable, if that is all the next tick would do: true then. False (at once, or
     * after the wait) when the tick would do anything else first or too: a deferred
     * callback is queued, a timer is due, another watched stream is ready, a signal came,
     * stop() was called. The caller then goes the usual way (it suspends; the loop runs
     * its callback). It is for code the loop would run next anyway: a coroutine that a
     * stream callback resumed as its last act, or the main context outside run() (see
     * Coroutine\Scheduler::awaitReadable()). A driver may always return false.
     */
    public function awaitReadable(int $id): bool;

    /** Makes run() return after the callback that is running (or at once between ticks). */
    public function stop(): void;

    public function isRunning(): bool;

    /** Monotonic time in seconds, as the loop sees it (refreshed at least once a tick). */
    public function now(): float;

    /** True if an enabled, referenced watcher (or a deferred callback) would keep run() going. */
    public function isReferenced(): bool;

    /**
     * The registered watchers, for diagnostics: id => [type, enabled, referenced, detail].
     *
     * @return array<int, array{type: string, enabled: bool, referenced: bool, detail: string}>
     */
    public function watchers(): array;
}
