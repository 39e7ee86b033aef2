<?php

declare(strict_types=1);

namespace Petrel\Pool;

use Closure;
use Petrel\Coroutine\Scheduler;

/**
 * One coroutine at a time: the check every connection (MySQL, PostgreSQL, Redis) makes
 * before it talks to its server. enter() claims the connection for the running coroutine
 * (0: the main context), leave() frees it; entering while it is held throws the Error the
 * connection's $conflict makes — its own misuse Error, told who holds it and whether that
 * is the caller itself (which then is still iterating a stream, or listening).
 *
 * A pool never shares a connection; this catches code that does it by hand.
 *
 * @internal for the connection classes
 */
final class ExclusiveUse
{
    /** Id of the coroutine in a call (0: the main context); null when free. */
    private ?int $holder = null;
    /**
     * The scheduler of the connection's coroutines, kept: a call less per enter() than
     * Scheduler::get() (a connection's socket is bound to it anyway, see Readiness).
     */
    private readonly Scheduler $scheduler;

    /** @param Closure(string, bool): \Error $conflict given "coroutine #N" (or "the main context") and whether that is the caller */
    public function __construct(private readonly Closure $conflict)
    {
        $this->scheduler = Scheduler::get();
    }

    /** @throws \Error the connection's misuse Error, when it is held */
    public function enter(): void
    {
        $current = $this->scheduler->currentOrMain()->id;
        if ($this->holder !== null) {
            throw ($this->conflict)(self::who($this->holder), $this->holder === $current);
        }
        $this->holder = $current;
    }

    /** Throws as enter() would, without claiming. @throws \Error when it is held */
    public function check(): void
    {
        if ($this->holder !== null) {
            throw ($this->conflict)(self::who($this->holder), $this->holder === $this->scheduler->currentOrMain()->id);
        }
    }

    public function leave(): void
    {
        $this->holder = null;
    }

    public function busy(): bool
    {
        return $this->holder !== null;
    }

    /** Whether the running coroutine holds it. */
    public function heldByCaller(): bool
    {
        return $this->holder !== null && $this->holder === $this->scheduler->currentOrMain()->id;
    }

    /** "coroutine #N", or "the main context" for 0. */
    public static function who(int $id): string
    {
        return $id === 0 ? 'the main context' : "coroutine #{$id}";
    }
}
