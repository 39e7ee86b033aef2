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
 * A lease is in $leases when asked for since the last sweep, else in $resting: the sweep
 * takes back what rests and sets the others resting, and asking for a resting lease
 * moves it back. So lease(), called for every query, writes nothing when it finds one.
 *
 * @template T of object
 * @internal for Pool
 */
final class CoroutineLeases
{
    /**
     * Coroutine id (0: main context) => leased connection, asked for since the last sweep.
     * Public so that Pool::lease(), called for every query, finds a lease without a call;
     * only this class writes it.
     *
     * @var array<int, T>
     */
    public array $leases = [];
    /** @var array<int, T> the other leases, not asked for since the last sweep */
    private array $resting = [];
    /** @var array<int, true> leases taken with hold() */
    private array $held = [];
    /**
     * @var array<int, true> coroutines whose lease went back before they end (the sweep,
     *     release(), discard()): $releaseAtEnd is deferred in them already, as in every
     *     coroutine with a lease. So a coroutine leasing again is not given a second one,
     *     without an entry to add and remove for every leasing coroutine (~350 instructions).
     */
    private array $releasedEarly = [];
    private ?int $sweeper = null;
    /**
     * Deferred in each leasing coroutine, which calls it with itself; made once, as a
     * closure per lease costs an allocation.
     */
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

    /**
     * The lease of coroutine $id, if it has one (counted as asked for).
     *
     * @return T|null
     */
    public function leased(int $id): ?object
    {
        return $this->leases[$id] ?? (isset($this->resting[$id]) ? $this->wake($id) : null);
    }

    /** @return T see Pool::hold() */
    public function hold(): object
    {
        $coroutine = Scheduler::running();
        $connection = $this->leased($coroutine->id) ?? $this->leaseNew($coroutine);
        $this->held[$coroutine->id] = true;

        return $connection;
    }

    /** Gives the lease of coroutine $coroutineId (null: the current one) back to the pool. */
    public function release(?int $coroutineId = null): void
    {
        $key = $coroutineId ?? Scheduler::running()->id;
        $connection = $this->leases[$key] ?? $this->resting[$key] ?? null;
        if ($connection !== null) {
            $this->takeBack($key);
            $this->pool->release($connection);
        }
    }

    /** Has the pool close the current coroutine's lease (it broke). */
    public function discard(): void
    {
        $key = Scheduler::running()->id;
        $connection = $this->leases[$key] ?? $this->resting[$key] ?? null;
        if ($connection !== null) {
            $this->takeBack($key);
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
     * For Pool::lease(), when $leases has none for $coroutine (Scheduler::running(), #0 for
     * the main context): its resting lease ($kept true), or else a connection acquired
     * ($kept false) and released when the coroutine ends (by $releaseAtEnd).
     *
     * @param-out bool $kept
     * @return T
     */
    public function leaseNew(Coroutine $coroutine, ?bool &$kept = null): object
    {
        $id = $coroutine->id;
        $kept = isset($this->resting[$id]);
        if ($kept) {
            return $this->wake($id);
        }
        $connection = $this->pool->acquire(); // may suspend, but the coroutine stays the same
        $this->leases[$id] = $connection;
        if ($id !== 0 && !isset($this->releasedEarly[$id])) {
            // Scheduler::defer() for the coroutine at hand, without finding it again (~550
            // instructions). Once per coroutine, however often its lease went back early.
            $coroutine->defers[] = $this->releaseAtEnd;
        }
        $this->sweeper ??= $this->startSweep();

        return $connection;
    }

    /**
     * Starts the idle-lease sweep (there is a lease now), which stops itself when none is left.
     *
     * @return int its timer, for $sweeper
     */
    private function startSweep(): int
    {
        $driver = Scheduler::get()->driver;
        $sweeper = $driver->repeat($this->leaseIdleTimeout, $this->sweep(...));
        $driver->unreference($sweeper);

        return $sweeper;
    }

    /**
     * release() of the ending coroutine's lease, inlined: once per leasing coroutine. The
     * coroutine is passed by Coroutine::execute(), which a Scheduler::running() here would
     * find again (~250 instructions).
     */
    private function endLease(Coroutine $coroutine): void
    {
        $id = $coroutine->id;
        unset($this->releasedEarly[$id]);
        $connection = $this->leases[$id] ?? $this->resting[$id] ?? null;
        if ($connection !== null) {
            unset($this->leases[$id], $this->resting[$id], $this->held[$id]);
            $this->pool->release($connection);
        }
    }

    /**
     * Coroutine $id's resting lease, asked for again: back in $leases until the next sweep.
     *
     * @return T
     */
    private function wake(int $id): object
    {
        $connection = $this->resting[$id];
        unset($this->resting[$id]);

        return $this->leases[$id] = $connection;
    }

    /** Forgets coroutine $id's lease, which goes back before the coroutine ends. */
    private function takeBack(int $id): void
    {
        unset($this->leases[$id], $this->resting[$id], $this->held[$id]);
        if ($id !== 0) {
            $this->releasedEarly[$id] = true; // until its end, where $releaseAtEnd forgets it
        }
    }

    private function sweep(): void
    {
        foreach ($this->resting as $id => $connection) {
            // Still resting: a coroutine that a release below woke may have asked for it since.
            if (($this->resting[$id] ?? null) !== $connection || !$this->health->usable($connection)) {
                continue; // asked for, or busy, in a transaction or broken: its coroutine sorts it out
            }
            $held = isset($this->held[$id]);
            $this->takeBack($id);
            if ($held) {
                $this->pool->discard($connection); // its holder may come back to it: closed, never shared
            } else {
                $this->pool->release($connection);
            }
        }
        $this->resting += $this->leases; // asked for since the last sweep: resting until the next
        $this->leases = [];
        if ($this->resting === [] && $this->sweeper !== null) {
            Scheduler::get()->driver->cancel($this->sweeper);
            $this->sweeper = null;
        }
    }
}
