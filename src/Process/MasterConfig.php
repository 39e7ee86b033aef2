<?php

declare(strict_types=1);

namespace Petrel\Process;

/** How the master runs its workers. Immutable. */
final class MasterConfig
{
    public function __construct(
        public readonly int $workers = 2,
        public readonly ?string $pidFile = null,
        /** Seconds workers get to finish in-flight work on stop/reload before SIGKILL. */
        public readonly float $gracefulTimeout = 30.0,
        /** Seconds a new worker gets to report ready before the start (or reload) fails. */
        public readonly float $bootTimeout = 30.0,
        /** Where the master keeps the workers' status for `petrel status`; null: none. */
        public readonly ?string $statusFile = null,
        /** Process title prefix (ps shows "petrel: master", "petrel: worker 1"). */
        public readonly string $title = 'petrel',
        /** Task worker processes beside the workers (they run the master's $taskWorkerEntry); 0: none. */
        public readonly int $taskWorkers = 0,
        /**
         * Seconds a worker's loop may run one tick before the master's watchdog signals it
         * (Observability\BlockingDetector: the worker reports where it blocks); 0: no watchdog.
         */
        public readonly float $blockThreshold = 0.0,
    ) {
        if ($workers < 1) {
            throw new \InvalidArgumentException("workers must be >= 1, got {$workers}");
        }
        if ($blockThreshold < 0) {
            throw new \InvalidArgumentException("blockThreshold must be >= 0, got {$blockThreshold}");
        }
        if ($taskWorkers < 0) {
            throw new \InvalidArgumentException("taskWorkers must be >= 0, got {$taskWorkers}");
        }
    }
}
