<?php

declare(strict_types=1);

namespace Petrel\Loop\Internal;

use Closure;
use Petrel\Loop\Driver;

/**
 * What every driver is but its wait for streams: the Driver interface on a WatcherLoop,
 * which keeps the watchers, timers, signals and ticks. A driver passes the loop, made on
 * its StreamWaiter, to this constructor and adds what is its own (EpollDriver: fork
 * safety, release()).
 *
 * @internal
 */
abstract class WatcherLoopDriver implements Driver
{
    protected function __construct(private readonly WatcherLoop $loop)
    {
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
