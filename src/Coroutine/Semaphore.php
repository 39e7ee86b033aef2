<?php

declare(strict_types=1);

namespace Petrel\Coroutine;

use Closure;

/** Limits how many coroutines hold a permit at once; waiters are served first come, first served. */
final class Semaphore
{
    private int $available;
    /** @var array<int, Suspension> */
    private array $waiters = [];

    public function __construct(public readonly int $permits)
    {
        if ($permits < 1) {
            throw new CoroutineError("A semaphore needs at least one permit, got {$permits}");
        }
        $this->available = $permits;
    }

    /** @throws TimeoutException */
    public function acquire(?float $timeout = null): void
    {
        if ($this->available > 0 && $this->waiters === []) {
            $this->available--;

            return;
        }
        $suspension = Scheduler::get()->suspension();
        $key = \spl_object_id($suspension);
        $this->waiters[$key] = $suspension;
        try {
            $suspension->suspend($timeout);
        } finally {
            unset($this->waiters[$key]);
        }
    }

    public function tryAcquire(): bool
    {
        if ($this->available > 0 && $this->waiters === []) {
            $this->available--;

            return true;
        }

        return false;
    }

    public function release(): void
    {
        foreach ($this->waiters as $key => $waiter) {
            unset($this->waiters[$key]);
            if ($waiter->resume()) {
                return; // the permit passes straight to the waiter
            }
        }
        if ($this->available >= $this->permits) {
            throw new CoroutineError('Semaphore released more often than acquired');
        }
        $this->available++;
    }

    public function available(): int
    {
        return $this->available;
    }

    /**
     * @template T
     * @param Closure(): T $critical
     * @return T
     */
    public function withPermit(Closure $critical, ?float $timeout = null): mixed
    {
        $this->acquire($timeout);
        try {
            return $critical();
        } finally {
            $this->release();
        }
    }
}
