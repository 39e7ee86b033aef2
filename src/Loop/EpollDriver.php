<?php

declare(strict_types=1);

namespace Petrel\Loop;

use Closure;
use Petrel\Loop\Internal\EpollStreams;
use Petrel\Loop\Internal\Libc;
use Petrel\Loop\Internal\SignalDispatcher;
use Petrel\Loop\Internal\TimerHeap;
use Petrel\Loop\Internal\Watcher;

/**
 * A Linux epoll driver through FFI: no descriptor limit but RLIMIT_NOFILE, and the cost of
 * a wait grows with the number of ready streams, not of watched ones. Level-triggered, as
 * Driver specifies: a readable watcher runs in each tick in which its stream is readable.
 *
 * Descriptors. Each watched stream gets a descriptor of the driver's own, a duplicate
 * (see Internal\DescriptorChannel and docs/event-loop.md), closed when the stream's last
 * watcher is cancelled: a watched connection costs two descriptors. Cancel watchers
 * before closing their stream (as Driver requires): until then the duplicate keeps the
 * connection open and the peer sees no FIN. As a safety net, every second (and when run()
 * starts) the driver closes the duplicates of closed streams, and throws LoopError if one
 * had an enabled watcher, as StreamSelectDriver does.
 *
 * PHP's read buffer. epoll sees the kernel's buffer only; stream_select() also reports a
 * stream whose PHP-level read buffer holds data. A caller that reads with fgets()/fread()
 * on a buffered stream must drain what PHP buffered before it waits again, or disable the
 * buffer with stream_set_read_buffer($stream, 0) (StreamSocket does). EOF and errors are
 * reported by the kernel and always wake a readable watcher.
 *
 * Fork: a child never touches the parent's epoll instance; the first use of this driver
 * in a child (or release()) closes the inherited descriptors, and a driver used on in
 * the child registers its streams on an instance of its own.
 */
final class EpollDriver implements Driver
{
    /** @var array<int, Watcher> */
    private array $watchers = [];
    /** @var array<int, Watcher> enabled deferred callbacks, in queueing order */
    private array $deferQueue = [];
    private readonly EpollStreams $streams;
    /** When sweep() next runs (monotonic seconds). */
    private float $nextSweep = 0.0;
    private readonly SignalDispatcher $signals;
    private TimerHeap $timers;
    private int $nextId = 0;
    /** Number of enabled, referenced watchers. */
    private int $referenced = 0;
    private bool $running = false;
    private bool $stopping = false;

    /** @var \WeakMap<self, int>|null live drivers and the pid that made each */
    private static ?\WeakMap $instances = null;

    /**
     * A driver made in a forked child first releases the descriptors that drivers of the
     * parent left in this process (Scheduler::reset() after fork()), so they cannot keep
     * the parent's connections and pipes open.
     *
     * @throws LoopError if epoll through FFI is not available here (with the reason)
     */
    public function __construct()
    {
        $pid = (int) \getmypid();
        self::$instances ??= new \WeakMap();
        foreach (self::$instances as $driver => $owner) {
            if ($owner !== $pid) {
                $driver->release();
                self::$instances[$driver] = $pid; // released once; if used on, it rebuilds
            }
        }
        self::$instances[$this] = $pid;
        $this->streams = new EpollStreams(Libc::ffi());
        $this->timers = new TimerHeap();
        $this->signals = new SignalDispatcher();
    }

    /** Null if this driver works in this process, else why not, in one line. */
    public static function unavailableReason(): ?string
    {
        return Libc::unavailableReason();
    }

    /**
     * Closes the driver's descriptors now, without touching the epoll instance's
     * registrations (it may be shared with a parent process). A driver used after
     * release() registers its streams anew.
     */
    public function release(): void
    {
        $this->streams->abandon();
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
            $this->sweep();
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
                Watcher::READABLE, Watcher::WRITABLE => 'stream #' . (int) $watcher->value
                    . ', fd ' . $this->streams->descriptorOf($watcher),
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

        // Steps 2 to 4: wait for the streams (not at all with deferred callbacks queued)
        // until the next timer or the next sweep, then run the due timers. Read from
        // fields, not asked through calls: a tick with no timer due makes none.
        $now = \hrtime(true) * 1e-9;
        if ($now >= $this->nextSweep) {
            $this->sweep();
        }
        $until = $this->timers->nextDue < $this->nextSweep ? $this->timers->nextDue : $this->nextSweep;
        $this->streams->wait(
            $this->deferQueue !== [] || $until <= $now ? 0 : (int) \ceil(($until - $now) * 1000),
            $this->signals,
        );

        $now = \hrtime(true) * 1e-9;
        if ($this->timers->nextDue > $now) {
            return;
        }
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

    private function sweep(): void
    {
        $this->nextSweep = $this->now() + 1.0;
        $this->streams->sweep();
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
