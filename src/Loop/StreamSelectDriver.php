<?php

declare(strict_types=1);

namespace Petrel\Loop;

use Closure;
use Petrel\Loop\Internal\SelectStreams;
use Petrel\Loop\Internal\Watcher;
use Petrel\Loop\Internal\WatcherLoop;

/**
 * The always-available driver, on stream_select(). select(2) caps a process near 1,020
 * descriptors (FD_SETSIZE), which is why the HTTP server limits connections per worker.
 * Signals use pcntl's async handlers plus a self-pipe, so a signal that arrives just before
 * select() still wakes it.
 *
 * The watchers, timers, signals and ticks are Internal\WatcherLoop's, as for every driver;
 * this one waits for streams with Internal\SelectStreams.
 */
final class StreamSelectDriver implements Driver
{
    private readonly WatcherLoop $loop;

    public function __construct()
    {
        $this->loop = new WatcherLoop(new SelectStreams());
    }

    public function defer(Closure $callback): int
    {
        return $this->loop->defer($callback);
    }

    public function delay(float $seconds, Closure $callback): int
    {
        return $this->loop->delay($seconds, $callback);
    }

    public function repeat(float $interval, Closure $callback): int
    {
        return $this->loop->repeat($interval, $callback);
    }

    public function onReadable(mixed $stream, Closure $callback): int
    {
        return $this->loop->onStream(Watcher::READABLE, $stream, $callback);
    }

    public function onWritable(mixed $stream, Closure $callback): int
    {
        return $this->loop->onStream(Watcher::WRITABLE, $stream, $callback);
    }

    public function onSignal(int $signal, Closure $callback): int
    {
        return $this->loop->onSignal($signal, $callback);
    }

    public function enable(int $id): void
    {
        $this->loop->enable($id);
    }

    public function disable(int $id): void
    {
        $this->loop->disable($id);
    }

    public function cancel(int $id): void
    {
        $this->loop->cancel($id);
    }

    public function reference(int $id): void
    {
        $this->loop->reference($id);
    }

    public function unreference(int $id): void
    {
        $this->loop->unreference($id);
    }

    public function run(): void
    {
        $this->loop->run();
    }

    public function awaitReadable(int $id): bool
    {
        return $this->loop->awaitReadable($id);
    }

    public function stop(): void
    {
        $this->loop->stop();
    }

    public function isRunning(): bool
    {
        return $this->loop->isRunning();
    }

    public function now(): float
    {
        return \hrtime(true) * 1e-9;
    }

    public function isReferenced(): bool
    {
        return $this->loop->isReferenced();
    }

    public function watchers(): array
    {
        return $this->loop->watchers();
    }
}
