<?php

declare(strict_types=1);

namespace Petrel\Loop\Internal;

use Closure;
use Petrel\Loop\LoopError;

/**
 * Everything a driver does but wait for streams: the watchers and their ids, enabled and
 * referenced states, the defer queue, the timers (a TimerHeap), the signal watchers (a
 * SignalDispatcher), run()/stop() and the tick, in the order Driver documents. The
 * drivers (EpollDriver, StreamSelectDriver) compose one with their StreamWaiter and pass
 * the Driver calls on; they keep only their way of waiting for I/O.
 *
 * @internal
 */
final class WatcherLoop
{
    /** @var array<int, Watcher> */
    private array $watchers = [];
    /** @var array<int, Watcher> enabled deferred callbacks, in queueing order */
    private array $deferQueue = [];
    private readonly TimerHeap $timers;
    private readonly SignalDispatcher $signals;
    private int $nextId = 0;
    /** Number of enabled, referenced watchers. */
    private int $referenced = 0;
    private bool $running = false;
    private bool $stopping = false;

    public function __construct(private readonly StreamWaiter $streams)
    {
        $this->timers = new TimerHeap();
        $this->signals = new SignalDispatcher();
    }

    /** What register() would do for a deferred callback, without its two calls: the scheduler defers often. */
    public function defer(Closure $callback): int
    {
        $id = ++$this->nextId;
        $this->watchers[$id] = $this->deferQueue[$id] = new Watcher($id, Watcher::DEFER, $callback);
        ++$this->referenced;

        return $id;
    }

    public function delay(float $seconds, Closure $callback): int
    {
        // NaN too: its due time would break the heap's order, and the loop would then spin
        // and run no timer again. INF is fine: due at INF, never run. (is_nan(), not
        // !($seconds >= 0): opcache's optimizer turns that into $seconds < 0, false for NaN.)
        if ($seconds < 0 || \is_nan($seconds)) {
            throw new LoopError("Timer delay must be >= 0, got {$seconds}");
        }

        return $this->register(Watcher::DELAY, $callback, $seconds);
    }

    public function repeat(float $interval, Closure $callback): int
    {
        if ($interval <= 0 || \is_nan($interval)) { // NaN too, see delay()
            throw new LoopError("Timer interval must be > 0, got {$interval}");
        }

        return $this->register(Watcher::REPEAT, $callback, $interval);
    }

    /** A readable ($type READABLE) or writable (WRITABLE) watcher of $stream. */
    public function onStream(int $type, mixed $stream, Closure $callback): int
    {
        if (!\is_resource($stream) || \get_resource_type($stream) !== 'stream') {
            throw new LoopError('Expected an open stream resource, got ' . \get_debug_type($stream));
        }

        return $this->register($type, $callback, $stream);
    }

    public function onSignal(int $signal, Closure $callback): int
    {
        if (!\function_exists('pcntl_signal')) {
            throw new LoopError('Signal watchers need ext-pcntl');
        }

        return $this->register(Watcher::SIGNAL, $callback, $signal);
    }

    public function enable(int $id): void
    {
        $watcher = $this->watchers[$id] ?? null;
        if ($watcher === null || $watcher->enabled) {
            return;
        }
        $watcher->enabled = true;
        $this->activate($watcher);
    }

    public function disable(int $id): void
    {
        $watcher = $this->watchers[$id] ?? null;
        if ($watcher === null || !$watcher->enabled) {
            return;
        }
        $watcher->enabled = false;
        $this->deactivate($watcher);
    }

    public function cancel(int $id): void
    {
        $watcher = $this->watchers[$id] ?? null;
        if ($watcher === null) {
            return;
        }
        $this->disable($id);
        unset($this->watchers[$id]);
        if ($watcher->type === Watcher::READABLE || $watcher->type === Watcher::WRITABLE) {
            $this->streams->detach($watcher);
        }
    }

    public function reference(int $id): void
    {
        $watcher = $this->watchers[$id] ?? null;
        if ($watcher === null || $watcher->referenced) {
            return;
        }
        $watcher->referenced = true;
        if ($watcher->enabled) {
            $this->referenced++;
        }
    }

    public function unreference(int $id): void
    {
        $watcher = $this->watchers[$id] ?? null;
        if ($watcher === null || !$watcher->referenced) {
            return;
        }
        $watcher->referenced = false;
        if ($watcher->enabled) {
            $this->referenced--;
        }
    }

    public function run(): void
    {
        if ($this->running) {
            throw new LoopError('The loop is already running; run() cannot be nested');
        }
        $this->running = true;
        $this->stopping = false;
        try {
            $this->streams->sweep();
            // The ticks, in the order documented on Driver. Here rather than in a method of
            // their own: a tick with no deferred callback and no timer due then costs three
            // field reads and one call, the wait; the other phases are calls only when they
            // have work.
            while (!$this->stopping && $this->referenced > 0) {
                if ($this->deferQueue !== []) {
                    $this->runDeferred();
                    if ($this->stopping || $this->referenced === 0) {
                        break;
                    }
                }
                // Wait (not at all with deferred callbacks queued) until the next timer,
                // read from a field rather than asked through a call. No timer, no clock
                // read: a client's loop often has none.
                $this->streams->wait($this->deferQueue !== [] ? 0.0 : $this->timers->nextDue, $this->signals);
                $nextDue = $this->timers->nextDue;
                if ($nextDue !== \INF && $nextDue <= ($now = \hrtime(true) * 1e-9)) {
                    $this->runTimers($now);
                }
            }
        } finally {
            $this->running = false;
            $this->stopping = false;
        }
    }

    /** See Driver::awaitReadable(): the loop's queues here, the streams in the StreamWaiter. */
    public function awaitReadable(int $id): bool
    {
        $watcher = $this->watchers[$id] ?? null;
        if ($watcher === null || !$watcher->enabled || $watcher->type !== Watcher::READABLE || $this->deferQueue !== [] || $this->stopping) {
            return false;
        }

        return $this->streams->awaitReadable($watcher, $this->timers->nextDue, $this->signals);
    }

    public function stop(): void
    {
        if ($this->running) {
            $this->stopping = true;
        }
    }

    public function isRunning(): bool
    {
        return $this->running;
    }

    public function isReferenced(): bool
    {
        return $this->referenced > 0;
    }

    /** @return array<int, array{type: string, enabled: bool, referenced: bool, detail: string}> */
    public function watchers(): array
    {
        $now = \hrtime(true) * 1e-9;
        $info = [];
        foreach ($this->watchers as $id => $watcher) {
            $detail = match ($watcher->type) {
                Watcher::READABLE, Watcher::WRITABLE => $this->streams->describe($watcher),
                Watcher::SIGNAL => 'signal ' . $watcher->value,
                Watcher::DELAY, Watcher::REPEAT => $watcher->enabled
                    ? \sprintf('due in %.3fs', $watcher->due - $now)
                    : \sprintf('every %ss', $watcher->value),
                default => '',
            };
            $info[$id] = [
                'type' => Watcher::NAMES[$watcher->type],
                'enabled' => $watcher->enabled,
                'referenced' => $watcher->referenced,
                'detail' => $detail,
            ];
        }

        return $info;
    }

    private function register(int $type, Closure $callback, mixed $value): int
    {
        $watcher = new Watcher(++$this->nextId, $type, $callback, $value);
        if ($type === Watcher::READABLE || $type === Watcher::WRITABLE) {
            $this->streams->attach($watcher);
        }
        $this->watchers[$watcher->id] = $watcher;
        $this->activate($watcher);

        return $watcher->id;
    }

    private function activate(Watcher $watcher): void
    {
        switch ($watcher->type) {
            case Watcher::DEFER:
                $this->deferQueue[$watcher->id] = $watcher;
                break;
            case Watcher::DELAY:
            case Watcher::REPEAT:
                \assert(\is_float($watcher->value));
                $watcher->due = \hrtime(true) * 1e-9 + $watcher->value;
                $this->timers->insert($watcher);
                break;
            case Watcher::READABLE:
            case Watcher::WRITABLE:
                $this->streams->enable($watcher);
                break;
            case Watcher::SIGNAL:
                $this->signals->add($watcher);
                $this->streams->useSignalPipe($this->signals->pipe());
                break;
        }
        if ($watcher->referenced) {
            $this->referenced++;
        }
    }

    private function deactivate(Watcher $watcher): void
    {
        switch ($watcher->type) {
            case Watcher::DEFER:
                unset($this->deferQueue[$watcher->id]);
                break;
            case Watcher::DELAY:
            case Watcher::REPEAT:
                $this->timers->remove($watcher);
                break;
            case Watcher::READABLE:
            case Watcher::WRITABLE:
                $this->streams->disable($watcher);
                break;
            case Watcher::SIGNAL:
                $this->signals->remove($watcher);
                break;
        }
        if ($watcher->referenced) {
            $this->referenced--;
        }
    }

    /** Runs the deferred callbacks queued before this tick (those they queue wait for the next). */
    private function runDeferred(): void
    {
        $batch = $this->deferQueue;
        $this->deferQueue = [];
        try {
            foreach ($batch as $id => $watcher) {
                unset($batch[$id]);
                if (!$watcher->enabled) {
                    continue;
                }
                // cancel($id) for an enabled deferred watcher, without its three calls (a
                // deferred callback runs per loop turn under load: the HTTP runners' dispatch).
                $watcher->enabled = false;
                unset($this->watchers[$id]);
                if ($watcher->referenced) {
                    --$this->referenced;
                }
                ($watcher->callback)($id);
            }
        } finally {
            if ($batch !== []) {
                $this->deferQueue = $batch + $this->deferQueue;
            }
        }
    }

    /** Runs the timers due at $now, earliest first. */
    private function runTimers(float $now): void
    {
        while (($timer = $this->timers->extractDue($now)) !== null) {
            if ($timer->type === Watcher::REPEAT) {
                \assert(\is_float($timer->value));
                $timer->due += $timer->value;
                if ($timer->due <= $now) {
                    $timer->due = $now + $timer->value;
                }
                $this->timers->insert($timer);
            } else {
                $this->cancel($timer->id);
            }
            ($timer->callback)($timer->id);
        }
    }
}
