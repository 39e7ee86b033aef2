<?php

declare(strict_types=1);

namespace Petrel\Coroutine;

/** Waits for a group of tasks: add() before starting each, done() when it ends, wait(). */
final class WaitGroup
{
    private int $count = 0;
    /** @var array<int, Suspension> */
    private array $waiters = [];

    public function add(int $delta = 1): void
    {
        if ($this->count + $delta < 0) { // the count stays as it was: its waiters wait on
            throw new CoroutineError('WaitGroup counter went below zero: done() called more often than add()');
        }
        $this->count += $delta;
        if ($this->count === 0) {
            $waiters = $this->waiters;
            $this->waiters = [];
            foreach ($waiters as $waiter) {
                $waiter->resume();
            }
        }
    }

    public function done(): void
    {
        $this->add(-1);
    }

    public function count(): int
    {
        return $this->count;
    }

    /** @throws TimeoutException */
    public function wait(?float $timeout = null): void
    {
        if ($this->count === 0) {
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
}
