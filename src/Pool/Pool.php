<?php

declare(strict_types=1);

namespace Petrel\Pool;

use Closure;
use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\Suspension;
use Petrel\Pool\Internal\ConnectionHealth;
use Petrel\Pool\Internal\CoroutineLeases;
use Petrel\Pool\Internal\Slot;
use Throwable;

/**
 * A bounded pool of connections (SQL, Redis, anything) for one worker process.
 *
 * Exclusive by construction: a connection is either idle in the pool or held by exactly
 * one borrower, so two coroutines can never use it at once. lease() binds one connection
 * to the current coroutine and returns it when the coroutine ends, even if the code forgot.
 * A connection that is no longer usable when returned (lost, mid-transaction, broken
 * protocol state) is closed, not reused; one idle for a while is health-checked before
 * reuse, so connections left dead by a server restart are replaced transparently.
 *
 * Here: acquire, release, waiters, the idle list and its reaper. The per-coroutine leases
 * are Internal\CoroutineLeases', the checks Internal\ConnectionHealth's.
 *
 * @template T of object
 */
final class Pool
{
    /** @var list<Slot<T>> idle connections, last in, first out */
    private array $idle = [];
    /** @var array<int, Slot<T>> spl_object_id => slot, for every open connection */
    private array $slots = [];
    private int $size = 0;
    /** Acquires that gave up (PoolExhaustedException) since the pool was made, for the metrics. */
    private int $timeouts = 0;
    /** @var array<int, Suspension> FIFO of coroutines waiting for a connection */
    private array $waiters = [];
    private ?int $reaper = null;
    private bool $closed = false;
    /** @var ConnectionHealth<T> */
    private readonly ConnectionHealth $health;
    /** @var CoroutineLeases<T> */
    private readonly CoroutineLeases $leases;
    /**
     * How long an idle connection may be handed out again without ConnectionHealth::reusable():
     * when $isUsable is asked on return only, until its health check is due (for ever
     * without one); -INF when $isUsable is asked on checkout too.
     */
    private readonly float $trustIdleFor;

    /**
     * @param Closure(): T $connect opens a new connection (may suspend; may throw)
     * @param (Closure(T): bool)|null $isUsable cheap check on return and checkout (no round trip)
     * @param (Closure(T): mixed)|null $healthCheck a round trip for long-idle connections; throws or returns false if dead
     * @param (Closure(T): void)|null $close
     * @param bool $checkOnCheckout whether $isUsable is asked on checkout too; false for
     *     connections that nothing but their user can change, so not while they idle (an
     *     embedded database's): asked on return, it has said all there is to say
     */
    public function __construct(
        public readonly string $name,
        private readonly Closure $connect,
        public readonly PoolConfig $config = new PoolConfig(),
        ?Closure $isUsable = null,
        ?Closure $healthCheck = null,
        private readonly ?Closure $close = null,
        bool $checkOnCheckout = true,
    ) {
        $this->health = new ConnectionHealth($config, $isUsable, $healthCheck, $checkOnCheckout);
        $this->leases = new CoroutineLeases($this, $this->health, $config->leaseIdleTimeout);
        $this->trustIdleFor = $checkOnCheckout ? -\INF : ($healthCheck === null ? \INF : $config->healthCheckAfter);
        PoolRegistry::register($this);
    }

    /**
     * Takes a connection for exclusive use; give it back with release().
     *
     * @param float|null $timeout seconds to wait for one (INF: for ever); null: the config's
     * @return T
     * @throws PoolExhaustedException if none frees up within the acquire timeout
     * @throws \InvalidArgumentException for a NaN or negative timeout
     */
    public function acquire(?float $timeout = null): object
    {
        if ($timeout !== null && ($timeout < 0 || \is_nan($timeout))) {
            // NaN would pass every comparison and fail far from here, as a LoopError at the
            // first wait (PoolConfig refuses it the same way).
            throw new \InvalidArgumentException("Pool \"{$this->name}\": acquire() takes a timeout of zero or more seconds, not {$timeout}");
        }
        while (true) {
            if ($this->closed) {
                throw new PoolException("Pool \"{$this->name}\" is closed");
            }
            while (($slot = \array_pop($this->idle)) !== null) {
                $now = \hrtime(true) * 1e-9;
                // ConnectionHealth::reusable()'s answer without the call, when it can only be
                // yes (~550 instructions on each coroutine's first query): checked on return
                // only, back for less than healthCheckAfter, and young enough.
                if ($now - $slot->idleSince < $this->trustIdleFor && $now - $slot->born <= $this->config->maxLifetime) {
                    return $slot->connection;
                }
                try {
                    if ($this->health->reusable($slot, $now)) {
                        return $slot->connection;
                    }
                } catch (CancelledException $interrupted) {
                    // Our cancellation or deadline cut its health check short: closed (cut
                    // mid-exchange), and the idle ones left for a caller that can wait.
                    $this->discard($slot->connection);
                    throw $interrupted;
                }
                $this->destroy($slot->connection);
            }
            if ($this->size < $this->config->max) {
                return $this->open();
            }
            $connection = $this->wait($timeout ?? $this->config->acquireTimeout);
            if ($connection !== null) {
                return $connection; // handed over by release()
            }
            // null: a slot was freed by a discarded connection; go round and open one
        }
    }

    /**
     * Returns a connection taken with acquire(). An unusable one is closed instead, and its
     * slot goes to the next waiter.
     *
     * @param T $connection
     */
    public function release(object $connection): void
    {
        $slot = $this->slots[\spl_object_id($connection)] ?? null;
        if ($slot === null) {
            return; // not ours, or already destroyed
        }
        $now = \hrtime(true) * 1e-9;
        if ($this->closed || $now - $slot->born > $this->config->maxLifetime || !$this->health->usable($connection)) {
            $this->discard($connection);

            return;
        }
        if ($this->waiters !== [] && $this->handOver($connection)) {
            return;
        }
        $slot->idleSince = $now;
        $this->idle[] = $slot;
        $this->reaper ??= $this->startReaper();
    }

    /**
     * Closes a connection instead of returning it (after an error that may have broken it).
     *
     * @param T $connection
     */
    public function discard(object $connection): void
    {
        if (isset($this->slots[\spl_object_id($connection)])) {
            $this->destroy($connection);
            $this->handOver(null);
        }
    }

    /**
     * The connection bound to the current coroutine: the first call acquires one, later
     * calls in the same coroutine return the same one, and it goes back to the pool when
     * the coroutine ends, or before if the coroutine has not called lease() for
     * leaseIdleTimeout while the connection is usable (idle, in step: for SQL, outside a
     * transaction); the next call then acquires again. So callers must ask for it each
     * time rather than keep it. (In the main context, outside any coroutine, it stays bound
     * until releaseLease(), close() or the idle sweep.)
     *
     * $kept says which it was: true for the lease the coroutine held already, false for one
     * just checked out (and so just checked by the pool). For a caller that checks a kept
     * connection before using it (Database), in one call rather than leased() then lease().
     *
     * @param-out bool $kept
     * @return T
     */
    public function lease(?bool &$kept = null): object
    {
        // Every query of a request comes here: the common case is one lookup, no store.
        $leases = $this->leases;
        $coroutine = Scheduler::running();
        $kept = isset($leases->leases[$coroutine->id]);

        return $kept ? $leases->leases[$coroutine->id] : $leases->leaseNew($coroutine, $kept);
    }

    /**
     * The connection the current coroutine has leased already (counted as asked for, as by
     * lease()), or null when it holds none: lease() would acquire one. For a caller that
     * checks a connection kept since an earlier call, but not one the pool has just checked
     * out. (lease() with its $kept says the same and leases in one call.)
     *
     * @return T|null
     */
    public function leased(): ?object
    {
        return $this->leases->leased(Scheduler::running()->id);
    }

    /**
     * Like lease(), for a caller that keeps the connection (Database::connection()): the
     * idle sweep never hands it to another coroutine but closes it, so a holder that comes
     * back to it later finds it closed (and asks again) instead of sharing it.
     *
     * @return T
     */
    public function hold(): object
    {
        return $this->leases->hold();
    }

    /** Returns the current coroutine's leased connection now (it would be at its end). */
    public function releaseLease(?int $coroutineId = null): void
    {
        $this->leases->release($coroutineId);
    }

    /** Closes the current coroutine's leased connection (it broke); the next lease() acquires another. */
    public function discardLease(): void
    {
        $this->leases->discard();
    }

    /**
     * Runs $work with a connection and gives it back afterwards.
     *
     * @template R
     * @param Closure(T): R $work
     * @return R
     */
    public function use(Closure $work): mixed
    {
        $connection = $this->acquire();
        try {
            return $work($connection);
        } finally {
            $this->release($connection);
        }
    }

    /** @return array{name: string, size: int, idle: int, busy: int, waiting: int, max: int, timeouts: int} */
    public function stats(): array
    {
        return [
            'name' => $this->name,
            'size' => $this->size,
            'idle' => \count($this->idle),
            'busy' => $this->size - \count($this->idle),
            'waiting' => \count($this->waiters),
            'max' => $this->config->max,
            'timeouts' => $this->timeouts,
        ];
    }

    /** Closes idle connections now and busy ones when they come back; waiters get an error. */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        if ($this->reaper !== null) {
            Scheduler::get()->driver->cancel($this->reaper);
            $this->reaper = null;
        }
        $this->leases->stop();
        foreach ($this->idle as $slot) {
            $this->destroy($slot->connection);
        }
        $this->idle = [];
        $waiters = $this->waiters;
        $this->waiters = [];
        foreach ($waiters as $waiter) {
            $waiter->throw(new PoolException("Pool \"{$this->name}\" was closed while waiting for a connection"));
        }
    }

    /** @return T */
    private function open(): object
    {
        $this->size++;
        try {
            $connection = ($this->connect)();
        } catch (Throwable $error) {
            $this->size--;
            $this->handOver(null); // let a waiter try its luck
            throw $error;
        }
        $this->slots[\spl_object_id($connection)] = new Slot($connection, \hrtime(true) * 1e-9);

        return $connection;
    }

    /** @return T|null a connection handed over, or null when a slot freed up */
    private function wait(float $timeout): ?object
    {
        $scheduler = Scheduler::get();
        $suspension = $scheduler->suspension();
        $key = \spl_object_id($suspension);
        $this->waiters[$key] = $suspension;
        $timer = $scheduler->driver->delay($timeout, function () use ($suspension, $timeout): void {
            ++$this->timeouts;
            $suspension->throw(new PoolExhaustedException(\sprintf(
                'Pool "%s" is exhausted: all %d connections stayed in use for %s s (raise max, or hold connections for shorter)',
                $this->name,
                $this->config->max,
                $timeout,
            )));
        });
        try {
            $connection = $suspension->suspend();
        } finally {
            unset($this->waiters[$key]);
            $scheduler->driver->cancel($timer);
        }

        /** @var T|null $connection the value release() passed to resume() */
        return \is_object($connection) ? $connection : null;
    }

    /**
     * Gives $connection (or, with null, the right to open one) to the first live waiter.
     *
     * @param T|null $connection
     */
    private function handOver(?object $connection): bool
    {
        foreach ($this->waiters as $key => $waiter) {
            unset($this->waiters[$key]);
            if ($waiter->resume($connection)) {
                return true;
            }
        }

        return false;
    }

    /** @param T $connection */
    private function destroy(object $connection): void
    {
        $id = \spl_object_id($connection);
        if (!isset($this->slots[$id])) {
            return;
        }
        unset($this->slots[$id]);
        $this->size--;
        try {
            if ($this->close !== null) {
                ($this->close)($connection);
            }
        } catch (Throwable) {
            // Closing a broken connection may fail; it is gone either way.
        }
    }

    private function startReaper(): int
    {
        $driver = Scheduler::get()->driver;
        $reaper = $driver->repeat(\max(1.0, \min(30.0, $this->config->idleTimeout / 4)), function (): void {
            $now = \hrtime(true) * 1e-9;
            $keep = [];
            foreach ($this->idle as $slot) {
                if ($this->health->expired($slot, $now, $this->size)) {
                    $this->destroy($slot->connection);
                } else {
                    $keep[] = $slot;
                }
            }
            $this->idle = $keep;
        });
        $driver->unreference($reaper);

        return $reaper;
    }
}
