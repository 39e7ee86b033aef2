<?php

declare(strict_types=1);

namespace Petrel\Pool;

/** Pool sizing and timing, per worker process. Immutable; safe defaults. */
final class PoolConfig
{
    public function __construct(
        /** Most connections open at once (busy + idle). */
        public readonly int $max = 10,
        /** Idle connections kept even past idleTimeout. */
        public readonly int $min = 0,
        /** Seconds acquire() waits for a free connection before PoolExhaustedException. */
        public readonly float $acquireTimeout = 5.0,
        /** Idle connections beyond $min are closed after this many seconds. */
        public readonly float $idleTimeout = 60.0,
        /** Connections older than this are closed when next returned or checked out. */
        public readonly float $maxLifetime = 3600.0,
        /** A connection idle for longer is health-checked (a round trip) before reuse. */
        public readonly float $healthCheckAfter = 10.0,
        /**
         * A coroutine's lease (Pool::lease()) not used for this many seconds goes back to
         * the pool (at the latest twice this later), if its connection is idle and outside a
         * transaction: a long-lived coroutine (a consumer loop, a WebSocket connection, a
         * timer) does not pin a connection while it waits. Its next query leases again.
         */
        public readonly float $leaseIdleTimeout = 10.0,
    ) {
        if ($max < 1 || $min < 0 || $min > $max) {
            throw new \InvalidArgumentException("Pool sizes must satisfy 0 <= min <= max and max >= 1 (min {$min}, max {$max})");
        }
        // NaN compares false with everything, so it would pass the checks below and then
        // fail far from here: a LoopError at the first lease or wait, or a reaper that
        // never closes anything. INF is allowed: wait, idle or live for ever.
        foreach (\compact('acquireTimeout', 'idleTimeout', 'maxLifetime', 'healthCheckAfter', 'leaseIdleTimeout') as $name => $seconds) {
            if (\is_nan($seconds)) {
                throw new \InvalidArgumentException("Pool timeout {$name} is NaN; give a number of seconds");
            }
        }
        if ($acquireTimeout <= 0 || $idleTimeout <= 0 || $maxLifetime <= 0 || $healthCheckAfter < 0 || $leaseIdleTimeout <= 0) {
            throw new \InvalidArgumentException('Pool timeouts must be positive');
        }
    }

    /** @param mixed ...$changes named fields to change, e.g. with(max: 20) */
    public function with(mixed ...$changes): self
    {
        return new self(...\array_merge(\get_object_vars($this), $changes));
    }
}
