<?php

declare(strict_types=1);

namespace Petrel\Process\Internal;

use Closure;

/**
 * A graceful stop, in order: $onStopping (the master closes its listening socket), SIGTERM
 * to the HTTP workers, SIGTERM to the task workers once no HTTP worker is left (requests
 * still draining may use them to the end), SIGKILL to whatever is left after the graceful
 * timeout.
 *
 * @internal
 */
final class StopSequence
{
    private bool $begun = false;
    private float $deadline = \INF;
    private bool $killed = false;
    private bool $taskWorkersStopping = false;

    /**
     * @param Closure(): void|null $onStopping
     * @param Closure(string): void $log
     */
    public function __construct(
        private readonly WorkerTable $workers,
        private readonly float $gracefulTimeout,
        private readonly ?Closure $onStopping,
        private readonly Closure $log,
    ) {
    }

    public function begun(): bool
    {
        return $this->begun;
    }

    public function begin(): void
    {
        $this->begun = true;
        $this->deadline = \microtime(true) + $this->gracefulTimeout;
        if ($this->onStopping !== null) {
            ($this->onStopping)();
        }
        ($this->log)(\sprintf('stopping %d worker(s) gracefully', $this->workers->count()));
        $this->workers->signalAll(\SIGTERM, WorkerHandle::HTTP);
        $this->stopTaskWorkersLast();
    }

    /**
     * One turn of the master's loop during the stop (after it reaped): true once every
     * worker has exited.
     */
    public function progress(): bool
    {
        $this->stopTaskWorkersLast();
        if ($this->workers->isEmpty()) {
            ($this->log)('stopped');

            return true;
        }
        if (!$this->killed && \microtime(true) > $this->deadline) {
            ($this->log)(\sprintf('%d worker(s) still busy after %s s: killing them', $this->workers->count(), $this->gracefulTimeout));
            $this->workers->signalAll(\SIGKILL);
            $this->killed = true;
        }

        return false;
    }

    /** SIGTERM to the task workers once no worker that may submit tasks is left. */
    private function stopTaskWorkersLast(): void
    {
        if ($this->taskWorkersStopping || $this->workers->hasHttpWorkers()) {
            return;
        }
        $this->taskWorkersStopping = true;
        $this->workers->signalAll(\SIGTERM);
    }
}
