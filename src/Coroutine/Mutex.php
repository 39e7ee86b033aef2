<?php

declare(strict_types=1);

namespace Petrel\Coroutine;

use Closure;

/** Mutual exclusion between coroutines; only the holder may unlock. Not re-entrant. */
final class Mutex
{
    private readonly Semaphore $semaphore;
    private ?Coroutine $holder = null;

    public function __construct()
    {
        $this->semaphore = new Semaphore(1);
    }

    /** @throws TimeoutException */
    public function lock(?float $timeout = null): void
    {
        $me = Scheduler::get()->currentOrMain();
        if ($this->holder === $me) {
            throw new CoroutineError("Coroutine #{$me->id} already holds this mutex (it is not re-entrant)");
        }
        $this->semaphore->acquire($timeout);
        $this->holder = $me;
    }

    public function tryLock(): bool
    {
        if (!$this->semaphore->tryAcquire()) {
            return false;
        }
        $this->holder = Scheduler::get()->currentOrMain();

        return true;
    }

    public function unlock(): void
    {
        $me = Scheduler::get()->currentOrMain();
        if ($this->holder !== $me) {
            throw new CoroutineError($this->holder === null
                ? 'Cannot unlock a mutex that is not locked'
                : "Coroutine #{$me->id} cannot unlock a mutex held by coroutine #{$this->holder->id}");
        }
        $this->holder = null;
        $this->semaphore->release();
    }

    /** Whether a coroutine holds it, or it is being handed to the next waiter (unlock()). */
    public function isLocked(): bool
    {
        return $this->semaphore->available() === 0;
    }

    /**
     * @template T
     * @param Closure(): T $critical
     * @return T
     */
    public function synchronized(Closure $critical, ?float $timeout = null): mixed
    {
        $this->lock($timeout);
        try {
            return $critical();
        } finally {
            $this->unlock();
        }
    }
}
