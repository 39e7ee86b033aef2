<?php

declare(strict_types=1);

namespace Petrel\Pool\Internal;

use Closure;
use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\Scheduler;
use Petrel\Pool\PoolConfig;
use Throwable;

/**
 * Whether a pooled connection may be used (again): the pool's cheap check on return and
 * checkout ($isUsable, no round trip), its maximum lifetime, its idle timeout, and the
 * round trip ($healthCheck) for a connection idle longer than healthCheckAfter. A check
 * that throws counts as a failed one.
 *
 * @template T of object
 * @internal for Pool
 */
final class ConnectionHealth
{
    /** $isUsable as asked on checkout: null when it is asked on return only (see Pool) */
    private readonly ?Closure $isUsableOnCheckout;

    /**
     * @param (Closure(T): bool)|null $isUsable
     * @param (Closure(T): mixed)|null $healthCheck throws or returns false if dead
     * @param bool $checkOnCheckout see Pool
     */
    public function __construct(
        private readonly PoolConfig $config,
        private readonly ?Closure $isUsable,
        private readonly ?Closure $healthCheck,
        bool $checkOnCheckout = true,
    ) {
        $this->isUsableOnCheckout = $checkOnCheckout ? $isUsable : null;
    }

    /**
     * The cheap check: usable now (idle, in step: for SQL, outside a transaction).
     *
     * @param T $connection
     */
    public function usable(object $connection): bool
    {
        try {
            return $this->isUsable === null || ($this->isUsable)($connection);
        } catch (Throwable) {
            return false;
        }
    }

    /**
     * On checkout of an idle connection at $now: young enough, usable (unless that is checked on
     * return only), and alive if it idled long (a round trip then). usable()'s check is
     * repeated here rather than called: it is on the path of every first query of a
     * coroutine.
     *
     * @param Slot<T> $slot
     * @throws CancelledException the caller's cancellation or expired deadline, when it cut
     *                            the round trip short: that says nothing about the
     *                            connection, and every other check would fail the same way
     */
    public function reusable(Slot $slot, float $now): bool
    {
        if ($now - $slot->born > $this->config->maxLifetime) {
            return false;
        }
        $connection = $slot->connection;
        try {
            if ($this->isUsableOnCheckout !== null && !($this->isUsableOnCheckout)($connection)) {
                return false;
            }
        } catch (Throwable) {
            return false;
        }
        if ($this->healthCheck === null || $now - $slot->idleSince < $this->config->healthCheckAfter) {
            return true;
        }
        try {
            if (($this->healthCheck)($connection) !== false) {
                return true;
            }
        } catch (Throwable) {
            // Dead, unless the caller was interrupted: see below.
        }
        $interruption = Scheduler::get()->currentOrMain()->interruption();
        if ($interruption !== null) {
            throw $interruption;
        }

        return false;
    }

    /**
     * For the reaper: whether an idle connection should be closed at $now, the pool
     * holding $size connections.
     *
     * @param Slot<T> $slot
     */
    public function expired(Slot $slot, float $now, int $size): bool
    {
        return ($now - $slot->idleSince > $this->config->idleTimeout && $size > $this->config->min)
            || $now - $slot->born > $this->config->maxLifetime;
    }
}
