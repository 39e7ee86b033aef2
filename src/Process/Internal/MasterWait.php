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
 * Past FD_SETSIZE. select() takes descriptors numbered below 1,024 only; a master with more
 * pipes and sockets than that (--workers plus --task-workers near their caps) cannot select,
 * and polls instead: every POLL_PERIOD it reads each pipe (non-blocking: nothing read costs
 * one read()) and calls each sidecar stream's onReadable() (harmless when nothing came),
 * until a worker said something, a signal came or the wait is over. It says so in the log
 * once, and goes back to select() when it can.
 *
 * @internal
 */
final class MasterWait
{
    /**
     * How often the pipes are read when select() cannot be used: a read() per worker and
     * period, a message heard up to 50 ms late. Measured with 300 workers each reporting
     * once a second: the master used 6 % of a core polling, 8 % selecting (select() over
     * 300 pipes, woken ~300 times a second).
     */
    private const POLL_PERIOD = 0.05;

    /** True while select() cannot be used (said once in the log, until it can again). */
    private bool $polling = false;

    /**
     * @param list<Sidecar> $sidecars
     * @param Closure(): array<string, mixed> $status for the sidecars (SupervisionStatus::snapshot())
     * @param Closure(string): void $log the master's log
     */
    public function __construct(
        private readonly WorkerTable $workers,
        private readonly array $sidecars,
        private readonly Closure $status,
        private readonly Closure $log,
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
        $workers = [];
        $read = [];
        foreach ($this->workers->all() as $pid => $worker) {
            if ($worker->talking) { // its exit, not its pipe, says when it is gone: SIGCHLD
                $workers[$pid] = $worker;
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
        \error_clear_last();
        $ready = @\stream_select($read, $write, $except, 0, (int) ($timeout * 1e6));
        if ($ready === false) {
            // A signal (EINTR) is for the master's turn. Any other failure (a descriptor past
            // FD_SETSIZE) comes back at once every time: taken for a signal, the master spun.
            $failure = \error_get_last()['message'] ?? 'stream_select() failed';
            if (\str_contains($failure, 'Unable to select [4]')) {
                return true;
            }

            return $this->poll($workers, $timeout, $failure);
        }
        if ($this->polling) {
            $this->polling = false;
            ($this->log)('The master selects on its pipes again');
        }
        if ($ready === 0) {
            return false;
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

    /**
     * The wait without select() (see the class comment): true when it ended early (a worker
     * said something, or a signal came).
     *
     * @param array<int, WorkerHandle> $workers the talking workers
     */
    private function poll(array $workers, float $timeout, string $failure): bool
    {
        if (!$this->polling) {
            $this->polling = true;
            ($this->log)(\sprintf(
                "The master cannot select() on its workers' pipes (%s): it reads them every %d ms instead",
                \preg_match('/as high as (\\d+)/', $failure, $m) === 1 ? "descriptor {$m[1]} is past FD_SETSIZE, 1,024" : \strtok($failure, "\n"),
                (int) (self::POLL_PERIOD * 1000),
            ));
        }
        $end = \microtime(true) + $timeout;
        do {
            $slice = \min(self::POLL_PERIOD, \max(0.0, $end - \microtime(true)));
            $interrupted = \time_nanosleep(0, (int) ($slice * 1e9)) !== true;
            $heard = false;
            foreach ($workers as $worker) {
                $heard = ($worker->talking && $worker->readMessages()) || $heard;
            }
            foreach ($this->sidecars as $sidecar) {
                foreach ($sidecar->streams() as $stream) {
                    $sidecar->onReadable($stream, $this->status);
                }
            }
            if ($interrupted || $heard) {
                return true;
            }
        } while (\microtime(true) < $end);

        return false;
    }
}
