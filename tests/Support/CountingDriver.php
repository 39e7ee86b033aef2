<?php

declare(strict_types=1);

namespace Petrel\Tests\Support;

use Closure;
use Petrel\Loop\Driver;

/**
 * A Driver that passes everything on and counts the runs of readable callbacks (loop turns
 * a read waited for), the deferred callbacks queued and the waits in place asked for.
 */
final class CountingDriver implements Driver
{
    public int $readableCallbacks = 0;
    public int $deferred = 0;
    public int $awaitReadable = 0;

    public function __construct(private readonly Driver $driver)
    {
    }

    public function onReadable(mixed $stream, Closure $callback): int
    {
        return $this->driver->onReadable($stream, function (int $id, mixed $stream, bool $more = true) use ($callback): void {
            $this->readableCallbacks++;
            $callback($id, $stream, $more);
        });
    }

    public function defer(Closure $callback): int
    {
        $this->deferred++;

        return $this->driver->defer($callback);
    }

    public function delay(float $seconds, Closure $callback): int
    {
        return $this->driver->delay($seconds, $callback);
    }

    public function repeat(float $interval, Closure $callback): int
    {
        return $this->driver->repeat($interval, $callback);
    }

    public function onWritable(mixed $stream, Closure $callback): int
    {
        return $this->driver->onWritable($stream, $callback);
    }

    public function onSignal(int $signal, Closure $callback): int
    {
        return $this->driver->onSignal($signal, $callback);
    }

    public function enable(int $id): void
    {
        $this->driver->enable($id);
    }

    public function disable(int $id): void
    {
        $this->driver->disable($id);
    }

    public function cancel(int $id): void
    {
        $this->driver->cancel($id);
    }

    public function reference(int $id): void
    {
        $this->driver->reference($id);
    }

    public function unreference(int $id): void
    {
        $this->driver->unreference($id);
    }

    public function run(): void
    {
        $this->driver->run();
    }

    public function awaitReadable(int $id): bool
    {
        $this->awaitReadable++;

        return $this->driver->awaitReadable($id);
    }

    public function stop(): void
    {
        $this->driver->stop();
    }

    public function isRunning(): bool
    {
        return $this->driver->isRunning();
    }

    public function now(): float
    {
        return $this->driver->now();
    }

    public function isReferenced(): bool
    {
        return $this->driver->isReferenced();
    }

    public function watchers(): array
    {
        return $this->driver->watchers();
    }
}
