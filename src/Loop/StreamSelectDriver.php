<?php

declare(strict_types=1);

namespace Petrel\Loop;

use Closure;
use Petrel\Loop\Internal\SignalDispatcher;
use Petrel\Loop\Internal\TimerHeap;
use Petrel\Loop\Internal\Watcher;

/**
 * The always-available driver, on stream_select(). select(2) caps a process near 1,020
 * descriptors (FD_SETSIZE), which is why the HTTP server limits connections per worker.
 * Signals use pcntl's async handlers plus a self-pipe, so a signal that arrives just before
 * select() still wakes it.
 */
final class StreamSelectDriver implements Driver
{
    /** @var array<int, Watcher> */
    private array $watchers = [];
    /** @var array<int, Watcher> enabled deferred callbacks, in queueing order */
    private array $deferQueue = [];
    /** @var array<int, resource> */
    private array $readStreams = [];
    /** @var array<int, array<int, Watcher>> */
    private array $readWatchers = [];
    /** @var array<int, resource> */
    private array $writeStreams = [];
    /** @var array<int, array<int, Watcher>> */
    private array $writeWatchers = [];
    private readonly SignalDispatcher $signals;
    private TimerHeap $timers;
    private int $nextId = 0;
    /** Number of enabled, referenced watchers. */
    private int $referenced = 0;
    private bool $running = false;
    private bool $stopping = false;

    public function __construct()
    {
        $this->timers = new TimerHeap();
        $this->signals = new SignalDispatcher();
    }

    public function defer(Closure $callback): int
    {
        return $this->register(Watcher::DEFER, $callback, null);
    }

    public function delay(float $seconds, Closure $callback): int
    {
        if ($seconds < 0) {
            throw new LoopError("Timer delay must be >= 0, got {$seconds}");
        }

        return $this->register(Watcher::DELAY, $callback, $seconds);
    }

    public function repeat(float $interval, Closure $callback): int
    {
        if ($interval <= 0) {
            throw new LoopError("Timer interval must be > 0, got {$interval}");
        }

        return $this->register(Watcher::REPEAT, $callback, $interval);
    }

    public function onReadable(mixed $stream, Closure $callback): int
    {
        return $this->register(Watcher::READABLE, $callback, self::assertStream($stream));
    }

    public function onWritable(mixed $stream, Closure $callback): int
    {
        return $this->register(Watcher::WRITABLE, $callback, self::assertStream($stream));
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
        $this->disable($id);
        unset($this->watchers[$id]);
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
            while (!$this->stopping && $this->referenced > 0) {
                $this->tick();
            }
        } finally {
            $this->running = false;
            $this->stopping = false;
        }
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

    public function now(): float
    {
        return \hrtime(true) * 1e-9;
    }

    public function isReferenced(): bool
    {
        return $this->referenced > 0;
    }

    public function watchers(): array
    {
        $now = $this->now();
        $info = [];
        foreach ($this->watchers as $id => $watcher) {
            $detail = match ($watcher->type) {
                Watcher::READABLE, Watcher::WRITABLE => 'stream #' . (int) $watcher->value,
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
        $this->watchers[$watcher->id] = $watcher;
        $this->activate($watcher);

        return $watcher->id;
    }

    private function activate(Watcher $watcher): void
    {
        $id = $watcher->id;
        switch ($watcher->type) {
            case Watcher::DEFER:
                $this->deferQueue[$id] = $watcher;
                break;
            case Watcher::DELAY:
            case Watcher::REPEAT:
                \assert(\is_float($watcher->value));
                $watcher->due = $this->now() + $watcher->value;
                $this->timers->insert($watcher);
                break;
            case Watcher::READABLE:
                $key = (int) $watcher->value;
                $this->readStreams[$key] = $watcher->value;
                $this->readWatchers[$key][$id] = $watcher;
                break;
            case Watcher::WRITABLE:
                $key = (int) $watcher->value;
                $this->writeStreams[$key] = $watcher->value;
                $this->writeWatchers[$key][$id] = $watcher;
                break;
            case Watcher::SIGNAL:
                $this->signals->add($watcher);
                break;
        }
        if ($watcher->referenced) {
            $this->referenced++;
        }
    }

    private function deactivate(Watcher $watcher): void
    {
        $id = $watcher->id;
        switch ($watcher->type) {
            case Watcher::DEFER:
                unset($this->deferQueue[$id]);
                break;
            case Watcher::DELAY:
            case Watcher::REPEAT:
                $this->timers->remove($watcher);
                break;
            case Watcher::READABLE:
                $key = (int) $watcher->value;
                unset($this->readWatchers[$key][$id]);
                if (!isset($this->readWatchers[$key]) || $this->readWatchers[$key] === []) {
                    unset($this->readWatchers[$key], $this->readStreams[$key]);
                }
                break;
            case Watcher::WRITABLE:
                $key = (int) $watcher->value;
                unset($this->writeWatchers[$key][$id]);
                if (!isset($this->writeWatchers[$key]) || $this->writeWatchers[$key] === []) {
                    unset($this->writeWatchers[$key], $this->writeStreams[$key]);
                }
                break;
            case Watcher::SIGNAL:
                $this->signals->remove($watcher);
                break;
        }
        if ($watcher->referenced) {
            $this->referenced--;
        }
    }

    /**
     * One tick, in the order documented on Driver. Kept in one method on purpose: it is the
     * hottest loop of the server and each phase is a few lines.
     */
    private function tick(): void
    {
        if ($this->deferQueue !== []) {
            $batch = $this->deferQueue;
            $this->deferQueue = [];
            try {
                foreach ($batch as $id => $watcher) {
                    unset($batch[$id]);
                    if (!$watcher->enabled) {
                        continue;
                    }
                    $this->cancel($id);
                    ($watcher->callback)($id);
                }
            } finally {
                if ($batch !== []) {
                    $this->deferQueue = $batch + $this->deferQueue;
                }
            }
            if ($this->stopping || $this->referenced === 0) {
                return;
            }
        }

        $timeout = null;
        if ($this->deferQueue !== []) {
            $timeout = 0.0;
        } elseif (($next = $this->timers->peek()) !== null) {
            $timeout = \max(0.0, $next->due - $this->now());
        }
        $this->wait($timeout);

        $now = $this->now();
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

    private function wait(?float $timeout): void
    {
        $read = $this->readStreams;
        $write = $this->writeStreams;
        $signalPipe = $this->signals->pipe();
        if ($signalPipe !== null) {
            $read[-1] = $signalPipe;
        }
        if ($read === [] && $write === []) {
            if ($timeout === null || $timeout > 0) {
                if (TickCounter::$cell !== null) {
                    TickCounter::waiting();
                }
                \usleep((int) (($timeout ?? 3600.0) * 1e6));
                if (TickCounter::$cell !== null) {
                    TickCounter::running();
                }
            }
            $this->signals->dispatch();

            return;
        }
        $seconds = $timeout === null ? null : (int) $timeout;
        $micro = $timeout === null ? 0 : (int) (($timeout - $seconds) * 1e6);
        $except = null;
        try {
            if (TickCounter::$cell !== null) {
                TickCounter::waiting();
            }
            $ready = @\stream_select($read, $write, $except, $seconds, $micro);
            if (TickCounter::$cell !== null) {
                TickCounter::running();
            }
        } catch (\TypeError | \ValueError $error) {
            throw new LoopError(
                'A stream watched by the loop was closed while its watcher was still registered; '
                . 'cancel the watcher before closing the stream (' . $error->getMessage() . ')',
                0,
                $error,
            );
        }
        unset($read[-1]);
        $this->signals->dispatch();
        if (!$ready) {
            return; // timeout, or interrupted by a signal (EINTR)
        }
        foreach ($read as $key => $stream) {
            foreach ($this->readWatchers[$key] ?? [] as $watcher) {
                if ($watcher->enabled) {
                    ($watcher->callback)($watcher->id, $stream);
                }
            }
        }
        foreach ($write as $key => $stream) {
            foreach ($this->writeWatchers[$key] ?? [] as $watcher) {
                if ($watcher->enabled) {
                    ($watcher->callback)($watcher->id, $stream);
                }
            }
        }
    }

    /** @return resource */
    private static function assertStream(mixed $stream): mixed
    {
        if (!\is_resource($stream) || \get_resource_type($stream) !== 'stream') {
            throw new LoopError('Expected an open stream resource, got ' . \get_debug_type($stream));
        }

        return $stream;
    }
}
