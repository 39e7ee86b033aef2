<?php

declare(strict_types=1);

namespace Petrel\Process\Internal;

use Closure;
use Petrel\Process\ProcessException;

/**
 * Planned replacements ("recycles"), one at a time: a ready worker that said "retiring"
 * (max-requests, max-memory) goes on serving while its successor starts; once the successor
 * is ready, the old worker is retired (SIGTERM, a graceful stop), so capacity never drops.
 *
 * If the successor cannot boot (an error, an exit, not ready within the boot timeout), it
 * is retired, the old worker keeps serving and the next attempt for that number waits
 * RestartSchedule::backoff() of the consecutive failures. If the old worker exits first,
 * its successor takes over; should that successor then fail, the number is restarted after
 * the same back-off.
 *
 * A reload or a stop takes over: yieldToReload() and cancel().
 *
 * @internal
 */
final class RecycleCoordinator
{
    /** @var array{number: int, old: ?int, new: int, deadline: float}|null the recycle in progress (pids) */
    private ?array $current = null;
    /** @var array<int, int> worker number => consecutive failed replacements */
    private array $failures = [];
    /** @var array<int, float> worker number => no new replacement attempt before */
    private array $notBefore = [];

    /** @param Closure(string): void $log */
    public function __construct(
        private readonly WorkerTable $workers,
        private readonly RestartSchedule $restarts,
        private readonly SupervisionStatus $status,
        private readonly float $bootTimeout,
        private readonly Closure $log,
    ) {
    }

    /**
     * Starts the successor of the first ready worker that asked for one (and whose back-off
     * is over), or, with a recycle in progress, retires the old worker once its successor
     * is ready.
     */
    public function progress(): void
    {
        if ($this->current === null) {
            $this->startNext();

            return;
        }
        $new = $this->workers->get($this->current['new']);
        if ($new?->error !== null) {
            $this->fail($new->error);
        } elseif ($new?->state === WorkerHandle::READY) {
            $this->complete($new);
        } elseif (\microtime(true) > $this->current['deadline']) {
            $this->fail(\sprintf('it was not ready after %s s', $this->bootTimeout));
        }
    }

    /**
     * Handles the exit of a worker that is part of the recycle in progress; false for any
     * other worker.
     */
    public function onExit(WorkerHandle $worker, string $reason): bool
    {
        if ($this->current !== null && $worker->pid === $this->current['new']) {
            $this->fail($worker->error ?? "it {$reason} before it was ready");

            return true;
        }
        if ($this->current !== null && $worker->pid === $this->current['old']) {
            $this->current['old'] = null; // its successor, already starting, takes over
            ($this->log)("{$worker->label()} (pid {$worker->pid}) {$reason} while its replacement pid {$this->current['new']} was starting");

            return true;
        }

        return false;
    }

    /**
     * A reload replaces every worker: the successor starting is not needed (keeping it
     * would leave a worker of the old generation running), so it is retired; back-offs end.
     */
    public function yieldToReload(): void
    {
        if ($this->current !== null) {
            $this->workers->retire($this->current['new']);
            $this->current = null;
        }
        $this->notBefore = [];
    }

    /** A stop: the successor in progress is stopped with the other workers. */
    public function cancel(): void
    {
        $this->current = null;
    }

    private function startNext(): void
    {
        $now = \microtime(true);
        foreach ($this->workers->all() as $pid => $worker) {
            if ($worker->state === WorkerHandle::READY && $worker->retiringBecause !== null && ($this->notBefore[$worker->number] ?? 0.0) <= $now) {
                try {
                    $new = $this->workers->spawn($worker->number);
                } catch (ProcessException $error) {
                    $this->postpone($worker, $error->getMessage());

                    return;
                }
                $this->current = ['number' => $worker->number, 'old' => $pid, 'new' => $new, 'deadline' => $now + $this->bootTimeout];

                return;
            }
        }
    }

    /**
     * The successor of $old could not even be forked (no descriptor left, the process limit
     * reached): $old keeps serving and the next attempt waits the back-off, as after a
     * successor that failed to boot. (Uncaught, the exception ended the master, and every
     * worker with it.)
     */
    private function postpone(WorkerHandle $old, string $reason): void
    {
        $failures = $this->failures[$old->number] = ($this->failures[$old->number] ?? 0) + 1;
        $delay = RestartSchedule::backoff($failures);
        $this->notBefore[$old->number] = \microtime(true) + $delay;
        ($this->log)(\sprintf('%s %s, but its replacement could not be started: %s; it keeps serving, next attempt in %.1f s', $old->label(), $old->retiringBecause, $reason, $delay));
    }

    /** The successor is ready: the old worker, if still there, is retired. */
    private function complete(WorkerHandle $new): void
    {
        \assert($this->current !== null);
        $old = $this->current['old'] !== null ? $this->workers->get($this->current['old']) : null;
        $this->current = null;
        $this->failures[$new->number] = 0;
        if ($old === null) {
            ($this->log)("{$new->label()} replaced by pid {$new->pid}");

            return;
        }
        $memory = \str_contains((string) $old->retiringBecause, 'memory') || \str_contains((string) $old->retiringBecause, 'resident');
        $this->status->countRestarts($memory ? 'max-memory' : 'max-requests');
        ($this->log)(\sprintf('%s %s: replaced by pid %d (ready in %d ms)', $old->label(), $old->retiringBecause, $new->pid, (\microtime(true) - $new->startedAt) * 1000));
        $this->workers->retire($old->pid);
    }

    /** The successor could not boot: the old worker keeps serving; retry with back-off. */
    private function fail(string $reason): void
    {
        \assert($this->current !== null);
        ['number' => $number, 'old' => $oldPid, 'new' => $newPid] = $this->current;
        $this->current = null;
        $this->workers->retire($newPid);
        $failures = $this->failures[$number] = ($this->failures[$number] ?? 0) + 1;
        $delay = RestartSchedule::backoff($failures);
        $old = $oldPid !== null ? $this->workers->get($oldPid) : null;
        if ($old !== null) {
            $this->notBefore[$number] = \microtime(true) + $delay;
            ($this->log)(\sprintf('%s %s, but its replacement (pid %d) failed: %s; it keeps serving, next attempt in %.1f s', $old->label(), $old->retiringBecause, $newPid, $reason, $delay));
        } else {
            $this->restarts->schedule($number, $delay);
            ($this->log)(\sprintf('replacement of %s (pid %d) failed: %s; restarting in %.1f s', $this->workers->labelOf($number), $newPid, $reason, $delay));
        }
    }
}
