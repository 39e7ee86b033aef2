<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\Coroutine;
use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\Suspension;

/**
 * The coroutines that serve one server's connections. A connection with something to do
 * (just accepted, or parked between requests until its client's bytes came) is queued;
 * once per loop turn (a deferred callback) the runner that went idle last — its stack is
 * the one still in the CPU's cache — serves the queued ones one after the other. If one
 * of them waits on something else (a query), that runner stays with it and the next idle
 * runner (or a new one) takes the rest. So 1,000 keep-alive clients of a hello handler
 * are served by one or two fibers, not by 1,000, with one fiber switch per loop turn
 * instead of one per request (~3,800 instructions less per request at 50 connections,
 * bench/micro/http-instructions.sh). A connection that is its loop turn's only ready
 * stream has nothing to be batched with: a runner is woken for it at once (starter()).
 *
 * An idle runner waits on a Suspension it reuses. The Scheduler's own suspend() and
 * wake() are called directly, as Socket\Internal\Readiness does: a call less each.
 *
 * @internal
 */
final class ConnectionRunners
{
    /** @var list<Http1Connection> connections with something to do */
    private array $ready = [];
    /** @var list<Suspension> the idle runners' waits, the last to go idle at the end */
    private array $idle = [];
    /** A dispatch() is deferred. */
    private bool $scheduled = false;
    private bool $stopped = false;
    private readonly Scheduler $scheduler;
    private readonly \Closure $runner;
    private readonly \Closure $dispatch;

    public function __construct()
    {
        $this->scheduler = Scheduler::get();
        $this->runner = $this->runner(...);
        $this->dispatch = $this->dispatch(...);
    }

    /**
     * The closure that has a runner call $connection->serve(), from the loop (a deferred
     * callback): connections that become ready in one loop turn are served one after the
     * other on one runner. Made once per connection: the socket of a parked connection
     * calls it directly when the client's bytes come, a call less per request than a
     * callback that would call a method here.
     *
     * When the loop says no other stream callback follows in its tick ($more false, see
     * Loop\Driver) and nothing is queued yet, there is no batch to wait for: a runner is
     * woken at once, without the deferred callback (~4,500 instructions less per request
     * for a lone client, bench/micro/http-instructions.sh with CONNECTIONS=1). Called with
     * no argument (an accept, in the accept loop's coroutine), it defers.
     *
     * @return \Closure(bool=): void
     */
    public function starter(Http1Connection $connection): \Closure
    {
        return function (bool $more = true) use ($connection): void {
            $this->ready[] = $connection;
            if (!$this->scheduled) { // schedule(), inline: once per request
                if (!$more) {
                    $this->dispatch(); // from the loop's callback: wake() switches at once
                    return;
                }
                $this->scheduled = true;
                $this->scheduler->driver->defer($this->dispatch);
            }
        };
    }

    /** Ends the idle runners, and each busy one once its connection is done. */
    public function stop(): void
    {
        $this->stopped = true;
        $idle = $this->idle;
        $this->idle = [];
        foreach ($idle as $wait) {
            $this->scheduler->wake($wait, false, null);
        }
    }

    private function schedule(): void
    {
        if (!$this->scheduled && $this->ready !== []) {
            $this->scheduled = true;
            $this->scheduler->driver->defer($this->dispatch);
        }
    }

    /**
     * A runner serves ready connections until none is left or one of them waits on
     * something else (a query, a full socket buffer): control comes back here, and the next
     * runner takes over. A runner cancelled while idle has left (its wake says false).
     */
    private function dispatch(): void
    {
        $this->scheduled = false;
        while ($this->ready !== []) {
            $wait = \array_pop($this->idle);
            if ($wait === null) {
                $this->scheduler->spawn($this->runner);
            } else {
                $this->scheduler->wake($wait, true, null);
            }
        }
    }

    private function runner(): void
    {
        $coroutine = $this->scheduler->current();
        \assert($coroutine instanceof Coroutine);
        $wait = null;
        while (true) {
            while (($connection = \array_pop($this->ready)) !== null) {
                $connection->serve($coroutine);
                if ($coroutine->cancelled !== null) {
                    // Its connection was aborted, and cancellation is sticky: every wait of
                    // a connection it went on to serve would throw. Leave the rest to others.
                    $this->schedule();
                    return;
                }
            }
            if ($this->stopped) {
                return;
            }
            $wait = $this->idle[] = $this->scheduler->suspensionAgain($wait);
            try {
                if ($this->scheduler->suspend($wait, null) !== true) {
                    return; // stop()
                }
            } catch (CancelledException) {
                return; // its connection was aborted (cancellation is sticky)
            }
        }
    }
}
