<?php

declare(strict_types=1);

namespace Petrel\Coroutine;

use Throwable;

/**
 * The one bridge from callbacks to coroutines. Every suspending call follows the same
 * pattern: get a suspension, register whatever will wake it, suspend, clean up in finally.
 *
 *     $suspension = Scheduler::get()->suspension();
 *     $id = $driver->onReadable($stream, fn () => $suspension->resume());
 *     try {
 *         $suspension->suspend();
 *     } finally {
 *         $driver->cancel($id);
 *     }
 *
 * A suspension is used once. The first resume() or throw() wins; later ones return false
 * and do nothing, so a timer and an I/O callback may race safely. resume() may even come
 * before suspend(), which then returns at once.
 */
final class Suspension
{
    public const PENDING = 0;
    public const SUSPENDED = 1;
    public const RESUMED = 2;
    public const DONE = 3;

    /** @internal */
    public int $state = self::PENDING;
    /** @internal */
    public mixed $value = null;
    /** @internal */
    public ?Throwable $error = null;

    /**
     * @internal created by Scheduler::suspension(), one per wait: $scheduler is not
     * readonly because a readonly property is initialised through the engine's slow path.
     */
    public function __construct(
        private Scheduler $scheduler,
        public readonly Coroutine $coroutine,
    ) {
    }

    /**
     * Suspends the current coroutine until resume() or throw() is called.
     *
     * @throws TimeoutException if $timeout seconds pass first, or a deadline expires
     * @throws CancelledException if the coroutine is cancelled
     */
    public function suspend(?float $timeout = null): mixed
    {
        return $this->scheduler->suspend($this, $timeout);
    }

    /** Wakes the coroutine with $value; false if it was already woken. */
    public function resume(mixed $value = null): bool
    {
        return $this->scheduler->wake($this, $value, null);
    }

    /** Wakes the coroutine by throwing $error at its suspension point; false if already woken. */
    public function throw(Throwable $error): bool
    {
        return $this->scheduler->wake($this, null, $error);
    }

    public function isPending(): bool
    {
        return $this->state < self::RESUMED;
    }
}
