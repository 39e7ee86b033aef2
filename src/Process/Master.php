<?php

declare(strict_types=1);

namespace Petrel\Process;

use Closure;
use Petrel\Observability\Log;
use Petrel\Process\Internal\MasterWait;
use Petrel\Process\Internal\RecycleCoordinator;
use Petrel\Process\Internal\ReloadCoordinator;
use Petrel\Process\Internal\RestartSchedule;
use Petrel\Process\Internal\StatusFile;
use Petrel\Process\Internal\StopSequence;
use Petrel\Process\Internal\SupervisionStatus;
use Petrel\Process\Internal\WorkerHandle;
use Petrel\Process\Internal\WorkerTable;

/**
 * The master process: forks the workers, restarts those that die (with back-off when they
 * die at boot), replaces those that ask for it (max-requests, max-memory), reloads them
 * gracefully on SIGUSR1 and stops them gracefully on SIGTERM/SIGINT. It knows nothing of
 * HTTP: a worker is whatever $workerEntry runs.
 *
 * Task workers (MasterConfig::$taskWorkers) run $taskWorkerEntry and are supervised the same
 * way (restarted, recycled, reloaded, in the status file with kind "task"), except on stop:
 * they get SIGTERM only once every worker has exited, so requests still draining can use
 * them to the end.
 *
 * A planned replacement ("recycle") is not a crash: the worker says "retiring" on its pipe
 * and goes on serving; the master starts its replacement and sends the old one SIGTERM (a
 * graceful stop) only once the new one is ready, so capacity never drops. One recycle runs
 * at a time. If the replacement cannot boot, the old worker keeps serving, the failure is
 * logged and the next attempt waits (0.1 s doubling up to 10 s). A reload or a stop during
 * a recycle takes over: the replacement in progress is part of the generation they stop.
 *
 * Whatever the master retires (a reload's old generation, a recycled worker, a failed
 * successor) has the graceful timeout to exit, as at a stop; one still there then is killed.
 * A crash restart has the boot timeout, as the first start: one not ready by then is killed
 * and retried with the back-off.
 *
 * Each worker has a pipe to the master on which it says "ready", "error" (could not boot)
 * and its status every second; the master writes those into the status file read by
 * `petrel status`. The master's loop is select() on those pipes plus waitpid(WNOHANG);
 * signals (async handlers) interrupt the select.
 *
 * Sidecars (the /metrics endpoint, the --watch file watcher) run in that loop too: their
 * streams are in the select, they are polled every turn (4 times a second at least), and
 * one may ask for a graceful reload. A reload asked for during a reload waits for it to end.
 * Restarts are counted by reason (crash, overrun, max-requests, max-memory, reload) for the status.
 *
 * With MasterConfig::$blockThreshold, the master is also the watchdog of every HTTP
 * worker's loop (Observability\BlockingDetector): it maps the slots before the first fork,
 * gives each worker process one (WorkerContext::$watchdogCells), frees it when it reaps the
 * worker, and while a worker is watched its select() wakes every threshold/4 to read them.
 *
 * The parts, each in Internal\: WorkerTable (fork, pipes, watchdog slots, reaping),
 * RestartSchedule (crashes, back-off), RecycleCoordinator, ReloadCoordinator, StopSequence,
 * MasterWait (the select) and SupervisionStatus (restart counts, the status file).
 */
final class Master
{
    private bool $stopRequested = false;
    private bool $reloadRequested = false;
    private readonly WorkerTable $workers;
    private readonly SupervisionStatus $status;
    private readonly RestartSchedule $restarts;
    private readonly RecycleCoordinator $recycle;
    private readonly ReloadCoordinator $reload;
    private readonly StopSequence $stop;
    private readonly MasterWait $wait;
    /** @var Closure(string): void */
    private readonly Closure $log;

    /**
     * @param Closure(WorkerContext): int $workerEntry runs in each worker; returns its exit code
     * @param Closure(): void|null $onStopping runs in the master when a stop begins (e.g. to
     *        close its copy of the listening socket, so the kernel stops queueing connections)
     * @param Closure(WorkerContext): int|null $taskWorkerEntry runs in each task worker
     *        (required when MasterConfig::$taskWorkers > 0); its context's number counts task
     *        workers from 1
     * @param list<Sidecar> $sidecars run in the master's loop (see Sidecar)
     */
    public function __construct(
        Closure $workerEntry,
        private readonly MasterConfig $config,
        ?Closure $log = null,
        ?Closure $onStopping = null,
        ?Closure $taskWorkerEntry = null,
        private readonly array $sidecars = [],
    ) {
        if ($config->taskWorkers > 0 && $taskWorkerEntry === null) {
            throw new \InvalidArgumentException('taskWorkers > 0 needs a $taskWorkerEntry');
        }
        // Loaded now: a master out of descriptors, which must throw and catch it as a fork
        // fails, could not include its file then ("Class not found", and the master died).
        \class_exists(ProcessException::class);
        $this->log = $log ??= Log::info(...);
        $this->workers = new WorkerTable($config, $workerEntry, $taskWorkerEntry, $sidecars, $log);
        $this->status = new SupervisionStatus($this->workers, $config->statusFile !== null ? new StatusFile($config->statusFile) : null, $config->gracefulTimeout);
        $this->restarts = new RestartSchedule($this->workers, $this->status, $config->bootTimeout, $log);
        $this->recycle = new RecycleCoordinator($this->workers, $this->restarts, $this->status, $config->bootTimeout, $log);
        $this->reload = new ReloadCoordinator($this->workers, $this->restarts, $this->status, $config->bootTimeout, $log);
        $this->stop = new StopSequence($this->workers, $config->gracefulTimeout, $onStopping, $log);
        $this->wait = new MasterWait($this->workers, $sidecars, $this->status->snapshot(...), $log);
    }

    /**
     * Starts the workers, waits until each reports ready, calls $onReady, then supervises
     * until stopped. Returns the exit code for the master.
     *
     * @throws ProcessException if a worker cannot boot (its message says why)
     */
    public function run(?Closure $onReady = null): int
    {
        $pid = (int) \getmypid();
        $previous = [];
        foreach ([\SIGTERM, \SIGINT, \SIGHUP, \SIGUSR1, \SIGCHLD] as $signal) {
            $previous[$signal] = \pcntl_signal_get_handler($signal);
        }
        \pcntl_async_signals(true);
        \pcntl_signal(\SIGTERM, fn () => $this->stopRequested = true);
        \pcntl_signal(\SIGINT, fn () => $this->stopRequested = true);
        // The terminal of a foreground server closed (or `kill -HUP`): a graceful stop. It
        // ended master and workers at once, no drain, files left behind (PHP's default).
        \pcntl_signal(\SIGHUP, fn () => $this->stopRequested = true);
        \pcntl_signal(\SIGUSR1, fn () => $this->reloadRequested = true);
        \pcntl_signal(\SIGCHLD, static fn () => null); // only to interrupt select()
        // The title first: PidFile::read() takes a pid for a master's by it.
        @\cli_set_process_title("{$this->config->title}: master");
        $pidFile = $this->config->pidFile !== null ? new PidFile($this->config->pidFile) : null;
        $pidFile?->write($pid);
        try {
            $this->workers->startWatchdog();
            $this->workers->startTaskSlots();
            try {
                $this->workers->spawnAll();
            } catch (ProcessException $error) {
                $this->workers->killAll(); // those forked before the failure: none serves yet
                throw $error;
            }
            if (!$this->awaitBoot()) {
                return 0;
            }
            if ($onReady !== null) {
                $notes = \array_values(\array_unique(\array_filter(\array_map(static fn (WorkerHandle $worker): ?string => $worker->note, $this->workers->all()))));
                $onReady($notes);
            }

            return $this->supervise();
        } finally {
            // Files first, with our handlers still in place (a SIGTERM now is part of the stop
            // under way, not the end of the process before its pid file is gone); then the
            // handlers this process had before.
            $pidFile?->remove($pid);
            $this->status->removeFile();
            foreach ($previous as $signal => $handler) {
                \pcntl_signal($signal, $handler);
            }
        }
    }

    /**
     * Until every worker is ready (true). A stop meanwhile kills them, none of them serving
     * yet, and returns false: a stop, which exits 0 (it was a failed start, exit 1). On a
     * failure kills them all and throws. `petrel status` shows them starting meanwhile.
     */
    private function awaitBoot(): bool
    {
        $deadline = \microtime(true) + $this->config->bootTimeout;
        while (true) {
            $failure = null;
            foreach ($this->workers->reap() as [$worker, $reason]) {
                $failure ??= $worker->error ?? "{$worker->label()} {$reason} before it was ready";
            }
            foreach ($this->workers->all() as $worker) {
                $failure ??= $worker->error;
            }
            if ($failure === null && $this->stopRequested) {
                $this->workers->killAll();
                ($this->log)('stopped while starting');

                return false;
            }
            if ($failure === null && \microtime(true) > $deadline) {
                $failure = \sprintf('workers were not ready after %s s', $this->config->bootTimeout);
            }
            if ($failure !== null) {
                $this->workers->killAll();
                throw new ProcessException($failure);
            }
            $ready = \array_filter($this->workers->all(), static fn (WorkerHandle $w): bool => $w->state === WorkerHandle::READY);
            if (\count($ready) === $this->workers->slots()) {
                return true;
            }
            $this->status->write();
            $this->wait->wait(0.1);
        }
    }

    /** The master's loop: signals, exits, then the stop, or restarts, reload and recycle. */
    private function supervise(): int
    {
        while (true) {
            if ($this->stopRequested && !$this->stop->begun()) {
                $this->beginStop();
            }
            if ($this->reloadRequested && !$this->reload->inProgress()) {
                $this->reloadRequested = false;
                if (!$this->stop->begun()) {
                    $this->beginReload();
                }
            }
            foreach ($this->workers->reap() as [$worker, $reason]) {
                $row = StatusFile::row($worker->pid, $worker);
                foreach ($this->sidecars as $sidecar) {
                    $sidecar->onWorkerExit($row);
                }
                $this->onExit($worker, $reason);
            }
            $this->workers->killOverdue();
            if ($this->stop->begun()) {
                if ($this->stop->progress()) {
                    return 0;
                }
            } else {
                $this->restarts->spawnDue();
                $this->reload->progress();
                if (!$this->reload->inProgress()) {
                    $this->recycle->progress(); // a reload replaces them all
                }
            }
            $this->wait->wait(0.25);
            foreach ($this->sidecars as $sidecar) {
                $this->reloadRequested = $sidecar->poll($this->status->snapshot(...)) || $this->reloadRequested;
            }
            $this->status->write();
        }
    }

    /** An exit during a stop, or of a retiring worker, is expected; a reload's or recycle's is theirs; any other is a crash. */
    private function onExit(WorkerHandle $worker, string $reason): void
    {
        if ($this->stop->begun() || $worker->state === WorkerHandle::RETIRING) {
            return;
        }
        if ($this->reload->onExit($worker, $reason) || $this->recycle->onExit($worker, $reason)) {
            return;
        }
        $this->restarts->afterCrash($worker, $reason);
    }

    /** Pending restarts are dropped; the successor of a recycle in progress is stopped with the others. */
    private function beginStop(): void
    {
        $this->restarts->cancel();
        $this->recycle->cancel();
        $this->stop->begin();
    }

    /**
     * The new generation replaces every worker: no recycle is left to do. Restarts go on
     * while it boots (the old generation serves meanwhile, and keeps serving at full
     * strength if the reload fails); a reload that succeeds cancels those still pending.
     */
    private function beginReload(): void
    {
        $this->recycle->yieldToReload();
        $this->reload->begin();
    }
}
