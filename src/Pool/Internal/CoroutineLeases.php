<?php

declare(strict_types=1);

namespace Petrel\Pool\Internal;

use Closure;
use Petrel\Coroutine\Coroutine;
use Petrel\Coroutine\Scheduler;
use Petrel\Pool\Pool;

/**
 * Pool::lease() and its kin: which connection each coroutine (0: the main context) has
 * leased, its return when the coroutine ends (a deferred callback, made once), and the
 * idle-lease sweep, which every leaseIdleTimeout while there are leases takes back those
 * not asked for since the last sweep. Connections come from and go back to the Pool with
 * acquire(), release() and discard().
 *
 * @template T of object
 * @internal for Pool
 */
final class CoroutineLeases
{
    /**
     * Coroutine id (0: main context) => leased connection. Public, with $touched, so that
     * Pool::lease() and leased(), called for every query, find a lease without a call;
     * only they and this class write them.
     *
     * @var array<int, T>
     */
    public array $leases = [];
    /** @var array<int, true> leases asked for since the last sweep */
    public array $touched = [];
    /** @var array<int, true> leases taken with hold() */
    private array $held = [];
    /** @var array<int, true> coroutines with $releaseAtEnd deferred */
    private array $ending = [];
    private ?int $sweeper = null;
    /** Deferred by lease() in each leasing coroutine; made once, as a closure per lease costs an allocation. */
    private readonly Closure $releaseAtEnd;

    /**
     * @param Pool<T> $pool
     * @param ConnectionHealth<T> $health
     */
    public function __construct(
        private readonly Pool $pool,
        private readonly ConnectionHealth $health,
        private readonly float $leaseIdleTimeout,
    ) {
        $this->releaseAtEnd = $this->endLease(...);
    }

    /** @return T see Pool::hold() */
    public function hold(): object
    {
        $scheduler = Scheduler::get();
        $coroutine = $scheduler->current();
        $id = $coroutine->id ?? 0;
        $this->touched[$id] = true;
        $connection = $this->leases[$id] ?? $this->leaseNew($scheduler, $coroutine, $id);
        $this->held[Scheduler::get()->current()->id ?? 0] = true;

        return $connection;
    }

    /** Gives the lease of coroutine $coroutineId (null: the current one) back to the pool. */
    public function release(?int $coroutineId = null): void
    {
        $key = $coroutineId ?? (Scheduler::get()->current()->id ?? 0);
        $connection = $this->leases[$key] ?? null;
        if ($connection !== null) {
            unset($this->leases[$key], $this->held[$key]);
            $this->pool->release($connection);
        }
    }

    /** Has the pool close the current coroutine's lease (it broke). */
    public function discard(): void
    {
        $key = Scheduler::get()->current()->id ?? 0;
        $connection = $this->leases[$key] ?? null;
        if ($connection !== null) {
            unset($this->leases[$key], $this->held[$key]);
            $this->pool->discard($connection);
        }
    }

    /** Stops the sweep (the pool is closing); leases go back as their coroutines end. */
    public function stop(): void
    {
        if ($this->sweeper !== null) {
            Scheduler::get()->driver->cancel($this->sweeper);
            $this->sweeper = null;
        }
    }

    /**
     * The current coroutine's first lease: acquires, and has the connection released when the
     * coroutine ends (by $releaseAtEnd, which runs inside it and so finds its key).
     *
     * @return T
     */
    public function leaseNew(Scheduler $scheduler, ?Coroutine $coroutine, int $id): object
    {
        $connection = $this->pool->acquire(); // may suspend, but the coroutine stays the same
        $this->leases[$id] = $connection;
        if ($coroutine !== null && !isset($this->ending[$id])) {
            $this->ending[$id] = true; // once per coroutine, however often the sweep took its lease
            $scheduler->defer($this->releaseAtEnd);
        }
        if ($this->sweeper === null) {
            $driver = $scheduler->driver;
            $this->sweeper = $driver->repeat($this->leaseIdleTimeout, $this->sweep(...));
            $driver->unreference($this->sweeper);
        }

        return $connection;
    }

    /** release() of the ending coroutine's lease, inlined: once per leasing coroutine. */
    private function endLease(): void
    {
        $id = Scheduler::get()->current()->id ?? 0;
        unset($this->ending[$id], $this->touched[$id]);
        $connection = $this->leases[$id] ?? null;
        if ($connection !== null) {
            unset($this->leases[$id], $this->held[$id]);
            $this->pool->release($connection);
        }
    }

    private function sweep(): void
    {
        foreach ($this->leases as $id => $connection) {
            if (isset($this->touched[$id]) || !$this->health->usable($connection)) {
                continue; // in use lately, or busy, in a transaction or broken: its coroutine sorts it out
            }
            unset($this->leases[$id]);
            if (isset($this->held[$id])) {
                unset($this->held[$id]);
                $this->pool->discard($connection); // its holder may come back to it: closed, never shared
            } else {
                $this->pool->release($connection);
            }
        }
        $this->touched = [];
        if ($this->leases === [] && $this->sweeper !== null) {
            Scheduler::get()->driver->cancel($this->sweeper);
            $this->sweeper = null;
        }
    }
}
