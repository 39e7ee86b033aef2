<?php

declare(strict_types=1);

namespace Petrel\Coroutine;

use Closure;
use Throwable;

/**
 * A timer whose callback runs in a coroutine of its own: it may sleep, query a database or
 * call Redis like any request. Made by Petrel\every() and Petrel\after().
 *
 * A repeating timer never overlaps itself: when a tick is due while the previous one is
 * still running (a slow query), that tick is skipped and counted (skipped()), so a timer
 * can never pile up coroutines. Ticks keep their rhythm (due times do not drift with the
 * callback's duration). An exception from the callback is reported like any uncaught
 * coroutine error (STDERR by default) and the timer goes on.
 *
 * A timer keeps the event loop alive (like setInterval) until cancelled or unreferenced;
 * in a server worker it does not delay a graceful stop. cancel() stops future ticks; a
 * tick that is running finishes.
 *
 * When a server worker stops (a stop, a reload, a recycle), stopAll() ends every repeating
 * timer: no tick starts while the worker drains its requests. Ticks running then finish
 * beside them, within the graceful timeout (finishTicks()); a one-shot after() still fires
 * if it is due before the worker exits, as a request's own work would. Task workers do the
 * same for timers their tasks started.
 */
final class Timer
{
    /** @var \WeakMap<Scheduler, \SplObjectStorage<self, null>>|null by scheduler: the timers active or running a tick */
    private static ?\WeakMap $live = null;

    private ?int $watcher;
    private ?Coroutine $running = null;
    private int $runs = 0;
    private int $skipped = 0;
    private readonly Closure $tick;

    private function __construct(
        private readonly Scheduler $scheduler,
        private readonly float $interval,
        private readonly Closure $callback,
        private readonly bool $repeat,
        private readonly string $origin,
    ) {
        $this->tick = $this->tick(...);
        $driver = $scheduler->driver;
        $this->watcher = $repeat
            ? $driver->repeat($interval, $this->fire(...))
            : $driver->delay($interval, $this->fire(...));
        self::$live ??= new \WeakMap();
        if (!isset(self::$live[$scheduler])) {
            /** @var \SplObjectStorage<self, null> $timers */
            $timers = new \SplObjectStorage();
            self::$live[$scheduler] = $timers;
        }
        self::$live[$scheduler]->attach($this);
    }

    /**
     * @internal for a server worker's graceful stop: cancels every repeating timer of
     * $scheduler (one-shot timers are left to fire if due); returns the ticks running now.
     *
     * @return list<Coroutine>
     */
    public static function stopAll(Scheduler $scheduler): array
    {
        $running = [];
        $live = isset(self::$live[$scheduler]) ? clone self::$live[$scheduler] : []; // cancel() detaches
        foreach ($live as $timer) {
            if ($timer->repeat) {
                $timer->cancel();
            }
            if ($timer->isRunning()) {
                \assert($timer->running !== null);
                $running[] = $timer->running;
            }
        }

        return $running;
    }

    /**
     * @internal for a server worker's graceful stop: waits up to $seconds for the ticks
     * running in $scheduler's timers, then cancels those still running and gives each up
     * to 1 s to unwind (their finally blocks run; the cancellation is not reported).
     */
    public static function finishTicks(Scheduler $scheduler, float $seconds): void
    {
        $deadline = \microtime(true) + $seconds;
        foreach (self::stopAll($scheduler) as $tick) {
            try {
                $tick->join(\max(0.0, $deadline - \microtime(true)));
            } catch (TimeoutException) {
                $tick->cancel(new CancelledException('Cancelled: the worker stopped and its graceful timeout has passed'));
                try {
                    $tick->join(1.0); // its finally blocks run now, not never
                } catch (Throwable) {
                    // Cancelled (not reported), or still running: the process ends it.
                }
            } catch (Throwable) {
                // The tick reported its own failure (tick()).
            }
        }
    }

    /**
     * @internal use Petrel\every() or Petrel\after()
     * @param Closure(Timer): mixed $callback
     */
    public static function start(float $seconds, Closure $callback, bool $repeat, string $origin): self
    {
        if (\is_nan($seconds) || ($repeat ? $seconds <= 0 : $seconds < 0)) {
            throw new CoroutineError(\sprintf(
                'A timer %s must be %s, got %s',
                $repeat ? 'interval' : 'delay',
                $repeat ? '> 0' : '>= 0',
                \var_export($seconds, true),
            ));
        }

        return new self(Scheduler::get(), $seconds, $callback, $repeat, $origin);
    }

    /**
     * @internal "every 5s, app.php:12", for reports
     * @param array<int, array<string, mixed>> $frames debug_backtrace() of the caller
     */
    public static function callSite(array $frames): string
    {
        $file = $frames[0]['file'] ?? null;

        return \is_string($file) ? \basename($file) . ':' . ($frames[0]['line'] ?? '?') : 'unknown';
    }

    /** Stops future ticks (a running tick finishes). Idempotent. */
    public function cancel(): void
    {
        if ($this->watcher !== null) {
            $this->scheduler->driver->cancel($this->watcher);
            $this->watcher = null;
        }
        if (!$this->isRunning()) {
            self::$live?->offsetGet($this->scheduler)->detach($this);
        }
    }

    /** Whether ticks are still to come. */
    public function isActive(): bool
    {
        return $this->watcher !== null;
    }

    /** Whether a tick's coroutine is running now. */
    public function isRunning(): bool
    {
        return $this->running !== null && !$this->running->isFinished();
    }

    /** Lets the loop end even though this timer is active (a background job). */
    public function unreference(): self
    {
        if ($this->watcher !== null) {
            $this->scheduler->driver->unreference($this->watcher);
        }

        return $this;
    }

    public function reference(): self
    {
        if ($this->watcher !== null) {
            $this->scheduler->driver->reference($this->watcher);
        }

        return $this;
    }

    /** Ticks started so far. */
    public function runs(): int
    {
        return $this->runs;
    }

    /** Ticks skipped because the previous one was still running. */
    public function skipped(): int
    {
        return $this->skipped;
    }

    public function getInterval(): float
    {
        return $this->interval;
    }

    private function fire(): void
    {
        if (!$this->repeat) {
            $this->watcher = null; // a one-shot watcher is gone once it has fired
        }
        if ($this->isRunning()) {
            ++$this->skipped;

            return;
        }
        ++$this->runs;
        $this->running = $this->scheduler->spawn($this->tick);
    }

    private function reportError(Throwable $error): void
    {
        $this->scheduler->reportError($error, \sprintf('timer %s %ss, %s', $this->repeat ? 'every' : 'after', $this->interval, $this->origin));
    }

    private function tick(): void
    {
        try {
            ($this->callback)($this);
        } catch (CancelledException $error) {
            // The tick's own cancellation (the worker is stopping): nothing to report. Any
            // other — a TimeoutException of a timeout() in the callback, a cancelled
            // coroutine it joined — is the callback's failure, reported as any other.
            if ($error !== $this->scheduler->current()?->cancelled) {
                $this->reportError($error);
            }
        } catch (Throwable $error) {
            $this->reportError($error);
        } finally {
            if ($this->watcher === null) { // fired once, or cancelled: no tick to come
                self::$live?->offsetGet($this->scheduler)->detach($this);
            }
        }
    }
}
