<?php

declare(strict_types=1);

namespace Petrel\Process\Internal;

use Closure;
use Petrel\Process\Sidecar;

/**
 * How the master waits between its turns: one select() on the workers' pipes and the
 * sidecars' streams, handing what is readable to the worker (WorkerHandle::readMessages())
 * or the sidecar (Sidecar::onReadable()). A signal interrupts the select (the master's turn
 * handles it). While the blocking watchdog watches a worker, it is polled every period()
 * meanwhile: a select() per period; the rest of the master's turn runs as often as without.
 *
 * @internal
 */
final class MasterWait
{
    /**
     * @param list<Sidecar> $sidecars
     * @param Closure(): array<string, mixed> $status for the sidecars (SupervisionStatus::snapshot())
     */
    public function __construct(
        private readonly WorkerTable $workers,
        private readonly array $sidecars,
        private readonly Closure $status,
    ) {
    }

    /** Waits up to $timeout and handles what is readable. */
    public function wait(float $timeout): void
    {
        $watchdog = $this->workers->watchdog();
        if ($watchdog === null) {
            $this->select($timeout);

            return;
        }
        $end = \microtime(true) + $timeout;
        while ($watchdog->poll()) {
            $left = $end - \microtime(true);
            if ($left <= 0.0 || $this->select(\min($left, $watchdog->period))) {
                return;
            }
        }
        $this->select(\max(0.0, $end - \microtime(true)));
    }

    /** One select(): true when it ended early (something was readable, or a signal came). */
    private function select(float $timeout): bool
    {
        $workers = $this->workers->all();
        $read = [];
        foreach ($workers as $pid => $worker) {
            if ($worker->talking) { // its exit, not its pipe, says when it is gone: SIGCHLD
                $read[$pid] = $worker->pipe;
            }
        }
        $extra = [];
        foreach ($this->sidecars as $sidecar) {
            foreach ($sidecar->streams() as $stream) {
                $key = -1 - \count($extra);
                $read[$key] = $stream;
                $extra[$key] = [$sidecar, $stream];
            }
        }
        if ($read === []) {
            \usleep((int) ($timeout * 1e6));

            return false;
        }
        $write = $except = null;
        $ready = @\stream_select($read, $write, $except, 0, (int) ($timeout * 1e6));
        if ($ready === 0) {
            return false;
        }
        if ($ready === false) {
            return true; // a signal: the master's turn handles it
        }
        foreach (\array_keys($read) as $key) {
            if ($key >= 0) {
                $workers[$key]->readMessages();
            } else {
                [$sidecar, $stream] = $extra[$key];
                $sidecar->onReadable($stream, $this->status);
            }
        }

        return true;
    }
}
