<?php

declare(strict_types=1);

namespace Petrel\Process;

use Closure;
use Petrel\Coroutine\Scheduler;
use Petrel\Observability\Internal\BlockingWatchdog;
use Petrel\Observability\Log;
use Petrel\Process\Internal\StatusFile;
use Petrel\Process\Internal\WorkerHandle;
use Throwable;

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
 * Each worker has a pipe to the master on which it says "ready", "error" (could not boot)
 * and its status every second; the master writes those into the status file read by
 * `petrel status`. The master's loop is select() on those pipes plus waitpid(WNOHANG);
 * signals (async handlers) interrupt the select.
 *
 * Sidecars (the /metrics endpoint, the --watch file watcher) run in that loop too: their
 * streams are in the select, they are polled every turn (4 times a second at least), and
 * one may ask for a graceful reload. A reload asked for during a reload waits for it to end.
 * Restarts are counted by reason (crash, max-requests, max-memory, reload) for the status.
 *
 * With MasterConfig::$blockThreshold, the master is also the watchdog of every HTTP
 * worker's loop (Observability\BlockingDetector): it maps the slots before the first fork,
 * gives each worker process one (WorkerContext::$watchdogCells), frees it when it reaps the
 * worker, and while a worker is watched its select() wakes every threshold/4 to read them.
 */
final class Master
{
    private const RESTART_DELAY_MAX = 10.0;

    /** @var array<int, WorkerHandle> by pid */
    private array $workers = [];
    /** @var array<int, float> worker number => when to start it again */
    private array $restarts = [];
    /** @var array<int, int> worker number => consecutive deaths at boot */
    private array $bootFailures = [];
    /** @var array{old: list<int>, new: list<int>, deadline: float}|null */
    private ?array $reload = null;
    /** @var array{number: int, old: ?int, new: int, deadline: float}|null the recycle in progress (pids) */
    private ?array $recycle = null;
    /** @var array<int, int> worker number => consecutive failed replacements */
    private array $recycleFailures = [];
    /** @var array<int, float> worker number => no new replacement attempt before */
    private array $recycleNotBefore = [];
    private bool $stopRequested = false;
    private bool $reloadRequested = false;
    private bool $stopping = false;
    private float $stopDeadline = \INF;
    private bool $killed = false;
    private bool $taskWorkersStopping = false;
    private float $statusWrittenAt = 0.0;
    private float $startedAt;
    private ?BlockingWatchdog $watchdog = null;
    private Closure $log;
    private readonly ?StatusFile $statusFile;
    /** @var array{crash: int, max-requests: int, max-memory: int, reload: int} workers replaced, by reason */
    private array $restartCounts = ['crash' => 0, 'max-requests' => 0, 'max-memory' => 0, 'reload' => 0];

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
        private readonly Closure $workerEntry,
        private readonly MasterConfig $config,
        ?Closure $log = null,
        private readonly ?Closure $onStopping = null,
        private readonly ?Closure $taskWorkerEntry = null,
        private readonly array $sidecars = [],
    ) {
        if ($config->taskWorkers > 0 && $taskWorkerEntry === null) {
            throw new \InvalidArgumentException('taskWorkers > 0 needs a $taskWorkerEntry');
        }
        $this->log = $log ?? Log::info(...);
        $this->startedAt = \microtime(true);
        $this->statusFile = $config->statusFile !== null ? new StatusFile($config->statusFile) : null;
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
        $pidFile = $this->config->pidFile !== null ? new PidFile($this->config->pidFile) : null;
        $pidFile?->write($pid);
        \pcntl_async_signals(true);
        \pcntl_signal(\SIGTERM, fn () => $this->stopRequested = true);
        \pcntl_signal(\SIGINT, fn () => $this->stopRequested = true);
        \pcntl_signal(\SIGUSR1, fn () => $this->reloadRequested = true);
        \pcntl_signal(\SIGCHLD, static fn () => null); // only to interrupt select()
        @\cli_set_process_title("{$this->config->title}: master");
        try {
            $this->watchdog = $this->startWatchdog();
            for ($number = 1; $number <= $this->slots(); $number++) {
                $this->spawn($number);
            }
            $this->awaitBoot();
            if ($onReady !== null) {
                $notes = \array_values(\array_unique(\array_filter(\array_map(static fn (WorkerHandle $worker): ?string => $worker->note, $this->workers))));
                $onReady($notes);
            }

            return $this->supervise();
        } finally {
            foreach ([\SIGTERM, \SIGINT, \SIGUSR1, \SIGCHLD] as $signal) {
                \pcntl_signal($signal, \SIG_DFL);
            }
            $pidFile?->remove($pid);
            if ($this->config->statusFile !== null) {
                @\unlink($this->config->statusFile);
            }
        }
    }

    private function awaitBoot(): void
    {
        $deadline = \microtime(true) + $this->config->bootTimeout;
        while (true) {
            $failure = null;
            foreach ($this->reap() as [$worker, $reason]) {
                $failure ??= $worker->error ?? "{$worker->label()} {$reason} before it was ready";
            }
            foreach ($this->workers as $worker) {
                $failure ??= $worker->error;
            }
            if ($failure === null && $this->stopRequested) {
                $failure = 'stopped while starting';
            }
            if ($failure === null && \microtime(true) > $deadline) {
                $failure = \sprintf('workers were not ready after %s s', $this->config->bootTimeout);
            }
            if ($failure !== null) {
                $this->terminateAll(\SIGKILL);
                while ($this->workers !== []) {
                    $this->reap();
                    \usleep(10000);
                }
                throw new ProcessException($failure);
            }
            $ready = \array_filter($this->workers, static fn (WorkerHandle $w): bool => $w->state === WorkerHandle::READY);
            if (\count($ready) === $this->slots()) {
                return;
            }
            $this->pumpPipes(0.1);
        }
    }

    private function supervise(): int
    {
        while (true) {
            if ($this->stopRequested && !$this->stopping) {
                $this->beginStop();
            }
            if ($this->reloadRequested && $this->reload === null) {
                $this->reloadRequested = false;
                if (!$this->stopping) {
                    $this->beginReload();
                }
            }
            foreach ($this->reap() as [$worker, $reason]) {
                $this->onExit($worker, $reason);
            }
            if ($this->stopping) {
                $this->stopTaskWorkersLast();
                if ($this->workers === []) {
                    ($this->log)('stopped');

                    return 0;
                }
                if (!$this->killed && \microtime(true) > $this->stopDeadline) {
                    ($this->log)(\sprintf('%d worker(s) still busy after %s s: killing them', \count($this->workers), $this->config->gracefulTimeout));
                    $this->terminateAll(\SIGKILL);
                    $this->killed = true;
                }
            } else {
                $this->restartDue();
                $this->progressReload();
                $this->progressRecycle();
            }
            $this->pumpPipes(0.25);
            foreach ($this->sidecars as $sidecar) {
                $this->reloadRequested = $sidecar->poll($this->status(...)) || $this->reloadRequested;
            }
            $this->writeStatus();
        }
    }

    /** Worker numbers 1..slots(): the workers, then the task workers. */
    private function slots(): int
    {
        return $this->config->workers + $this->config->taskWorkers;
    }

    private function labelOf(int $number): string
    {
        return $number > $this->config->workers ? 'task worker ' . ($number - $this->config->workers) : "worker {$number}";
    }

    /** The blocking watchdog, when MasterConfig::$blockThreshold asks for one and FFI allows it. */
    private function startWatchdog(): ?BlockingWatchdog
    {
        if ($this->config->blockThreshold <= 0) {
            return null;
        }
        try {
            // Room for a reload's new generation beside the old one still draining, and more.
            return new BlockingWatchdog($this->config->blockThreshold, \max(64, 4 * $this->config->workers));
        } catch (\RuntimeException $error) {
            ($this->log)("the blocking detector is off: {$error->getMessage()}");

            return null;
        }
    }

    private function spawn(int $number): void
    {
        $slot = $number <= $this->config->workers ? $this->watchdog?->claim() : null;
        if ($slot === null && $this->watchdog !== null && $number <= $this->config->workers) {
            ($this->log)("{$this->labelOf($number)} starts without the blocking detector: all {$this->watchdog->capacity} slots are in use");
        }
        $cells = $slot !== null ? $this->watchdog?->cells($slot) : null;
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        if ($pair === false) {
            throw new ProcessException('Cannot create a pipe for a new worker');
        }
        $pid = \pcntl_fork();
        if ($pid === -1) {
            if ($slot !== null) {
                $this->watchdog?->release($slot);
            }
            throw new ProcessException('fork() failed: ' . \pcntl_strerror(\pcntl_get_last_error()));
        }
        if ($pid === 0) {
            \fclose($pair[0]);
            exit($this->runWorker($number, $pair[1], $cells));
        }
        if ($slot !== null) {
            $this->watchdog?->watch($slot, $pid);
        }
        \fclose($pair[1]);
        \stream_set_blocking($pair[0], false);
        $task = $number > $this->config->workers;
        $this->workers[$pid] = new WorkerHandle($pid, $number, $pair[0], $task ? WorkerHandle::TASK : WorkerHandle::HTTP, $task ? $number - $this->config->workers : $number);
    }

    /** In the child, right after fork: forget the master's state, then run the entry. */
    private function runWorker(int $number, mixed $pipe, ?\FFI\CData $watchdogCells): int
    {
        foreach ([\SIGTERM, \SIGINT, \SIGUSR1, \SIGUSR2, \SIGCHLD, \SIGHUP] as $signal) {
            \pcntl_signal($signal, \SIG_DFL);
        }
        foreach ($this->workers as $sibling) {
            @\fclose($sibling->pipe);
        }
        foreach ($this->sidecars as $sidecar) {
            foreach ($sidecar->streams() as $stream) {
                @\fclose($stream); // the master's (the /metrics socket and its clients)
            }
        }
        $this->workers = [];
        $this->watchdog = null; // the master's: a worker only writes its own slot
        \mt_srand(\random_int(0, \PHP_INT_MAX));
        Scheduler::reset();
        $task = $number > $this->config->workers;
        $label = $this->labelOf($number);
        @\cli_set_process_title("{$this->config->title}: {$label}");
        $context = new WorkerContext($task ? $number - $this->config->workers : $number, $pipe, $watchdogCells);
        try {
            $entry = $task ? $this->taskWorkerEntry : $this->workerEntry;
            \assert($entry !== null);

            return $entry($context);
        } catch (Throwable $error) {
            $context->fail($error->getMessage());
            \fwrite(\STDERR, "petrel: {$label} failed: {$error}\n");

            return 70;
        }
    }

    /**
     * Collects exited workers without blocking.
     *
     * @return list<array{WorkerHandle, string}> each with a description of how it ended
     */
    private function reap(): array
    {
        $exited = [];
        while (($pid = \pcntl_waitpid(-1, $status, \WNOHANG)) > 0) {
            $worker = $this->workers[$pid] ?? null;
            if ($worker === null) {
                continue;
            }
            unset($this->workers[$pid]);
            $this->watchdog?->forget($pid);
            $worker->readMessages();
            @\fclose($worker->pipe);
            $reason = \pcntl_wifsignaled($status)
                ? 'was killed by signal ' . \pcntl_wtermsig($status)
                : 'exited with code ' . \pcntl_wexitstatus($status);
            $exited[] = [$worker, $reason];
        }

        return $exited;
    }

    private function onExit(WorkerHandle $worker, string $reason): void
    {
        if ($this->stopping || $worker->state === WorkerHandle::RETIRING) {
            return;
        }
        if ($this->reload !== null && \in_array($worker->pid, $this->reload['new'], true)) {
            $this->failReload($worker->error ?? "new {$worker->label()} {$reason} before it was ready");

            return;
        }
        if ($this->recycle !== null && $worker->pid === $this->recycle['new']) {
            $this->failRecycle($worker->error ?? "it {$reason} before it was ready");

            return;
        }
        if ($this->recycle !== null && $worker->pid === $this->recycle['old']) {
            $this->recycle['old'] = null; // its replacement, already starting, takes over
            ($this->log)("{$worker->label()} (pid {$worker->pid}) {$reason} while its replacement pid {$this->recycle['new']} was starting");

            return;
        }
        $lived = \microtime(true) - $worker->startedAt;
        if ($worker->state === WorkerHandle::READY && ($lived >= 1.0 || $worker->dyingBecause !== null)) {
            $this->bootFailures[$worker->number] = 0;
            $delay = 0.0;
        } else {
            $failures = $this->bootFailures[$worker->number] = ($this->bootFailures[$worker->number] ?? 0) + 1;
            $delay = \min(self::RESTART_DELAY_MAX, 0.1 * 2 ** ($failures - 1));
        }
        $normal = $reason === 'exited with code 0';
        ++$this->restartCounts['crash'];
        ($this->log)(\sprintf(
            '%s (pid %d) %s%s; %s',
            $worker->label(),
            $worker->pid,
            $reason,
            ($why = $worker->error ?? $worker->dyingBecause) !== null ? " ({$why})" : '',
            $delay > 0 ? \sprintf('restarting in %.1f s', $delay) : ($normal ? 'starting a fresh one' : 'restarting'),
        ));
        $this->restarts[$worker->number] = \microtime(true) + $delay;
    }

    private function restartDue(): void
    {
        $now = \microtime(true);
        foreach ($this->restarts as $number => $at) {
            if ($at <= $now) {
                unset($this->restarts[$number]);
                $this->spawn($number);
            }
        }
    }

    private function beginStop(): void
    {
        $this->stopping = true;
        $this->restarts = [];
        $this->recycle = null; // the replacement in progress is stopped with the others
        $this->stopDeadline = \microtime(true) + $this->config->gracefulTimeout;
        if ($this->onStopping !== null) {
            ($this->onStopping)();
        }
        ($this->log)(\sprintf('stopping %d worker(s) gracefully', \count($this->workers)));
        foreach ($this->workers as $pid => $worker) {
            if ($worker->kind === WorkerHandle::HTTP) {
                \posix_kill($pid, \SIGTERM);
            }
        }
        $this->stopTaskWorkersLast();
    }

    /** During a stop: SIGTERM to the task workers once no worker that may submit tasks is left. */
    private function stopTaskWorkersLast(): void
    {
        if ($this->taskWorkersStopping) {
            return;
        }
        foreach ($this->workers as $worker) {
            if ($worker->kind === WorkerHandle::HTTP) {
                return;
            }
        }
        $this->taskWorkersStopping = true;
        $this->terminateAll(\SIGTERM);
    }

    private function beginReload(): void
    {
        if ($this->reload !== null) {
            ($this->log)('reload already in progress');

            return;
        }
        if ($this->recycle !== null) {
            // The new generation replaces every worker: the one starting for a recycle is
            // not needed, and keeping it would leave a worker of the old generation running.
            $this->retire($this->recycle['new']);
            $this->recycle = null;
        }
        $this->recycleNotBefore = [];
        $old = \array_keys($this->workers);
        $this->restarts = [];
        $new = [];
        for ($number = 1; $number <= $this->slots(); $number++) {
            $this->spawn($number);
            $new[] = (int) \array_key_last($this->workers);
        }
        $this->reload = ['old' => $old, 'new' => $new, 'deadline' => \microtime(true) + $this->config->bootTimeout];
        ($this->log)(\sprintf('reloading: started %d new worker(s)', \count($new)));
    }

    private function progressReload(): void
    {
        if ($this->reload === null) {
            return;
        }
        foreach ($this->reload['new'] as $pid) {
            $worker = $this->workers[$pid] ?? null;
            if ($worker?->error !== null) {
                $this->failReload($worker->error);

                return;
            }
            if ($worker?->state !== WorkerHandle::READY) {
                if (\microtime(true) > $this->reload['deadline']) {
                    $this->failReload(\sprintf('new workers were not ready after %s s', $this->config->bootTimeout));
                }

                return;
            }
        }
        $this->restartCounts['reload'] += \count($this->reload['new']);
        foreach ($this->reload['old'] as $pid) {
            $this->retire($pid);
        }
        $this->reload = null;
        ($this->log)('reloaded: old workers finish their requests and exit');
    }

    private function failReload(string $reason): void
    {
        \assert($this->reload !== null);
        foreach ($this->reload['new'] as $pid) {
            $this->retire($pid);
        }
        $this->reload = null;
        ($this->log)("reload failed, keeping the running workers: {$reason}");
    }

    /**
     * One recycle at a time: starts the replacement of the first ready worker that asked
     * for one, and retires the old worker once its replacement is ready.
     */
    private function progressRecycle(): void
    {
        if ($this->reload !== null) {
            return; // the reload replaces them all
        }
        if ($this->recycle === null) {
            $now = \microtime(true);
            foreach ($this->workers as $pid => $worker) {
                if ($worker->state === WorkerHandle::READY && $worker->retiringBecause !== null && ($this->recycleNotBefore[$worker->number] ?? 0.0) <= $now) {
                    $this->spawn($worker->number);
                    $this->recycle = ['number' => $worker->number, 'old' => $pid, 'new' => (int) \array_key_last($this->workers), 'deadline' => $now + $this->config->bootTimeout];

                    return;
                }
            }

            return;
        }
        $new = $this->workers[$this->recycle['new']] ?? null;
        if ($new?->error !== null) {
            $this->failRecycle($new->error);
        } elseif ($new?->state === WorkerHandle::READY) {
            $old = $this->recycle['old'] !== null ? ($this->workers[$this->recycle['old']] ?? null) : null;
            $this->recycle = null;
            $this->recycleFailures[$new->number] = 0;
            if ($old !== null) {
                $memory = \str_contains((string) $old->retiringBecause, 'memory') || \str_contains((string) $old->retiringBecause, 'resident');
                ++$this->restartCounts[$memory ? 'max-memory' : 'max-requests'];
                ($this->log)(\sprintf('%s %s: replaced by pid %d (ready in %d ms)', $old->label(), $old->retiringBecause, $new->pid, (\microtime(true) - $new->startedAt) * 1000));
                $this->retire($old->pid);
            } else {
                ($this->log)("{$new->label()} replaced by pid {$new->pid}");
            }
        } elseif (\microtime(true) > $this->recycle['deadline']) {
            $this->failRecycle(\sprintf('it was not ready after %s s', $this->config->bootTimeout));
        }
    }

    /** The replacement could not boot: the old worker keeps serving; retry with back-off. */
    private function failRecycle(string $reason): void
    {
        \assert($this->recycle !== null);
        ['number' => $number, 'old' => $oldPid, 'new' => $newPid] = $this->recycle;
        $this->recycle = null;
        $this->retire($newPid);
        $failures = $this->recycleFailures[$number] = ($this->recycleFailures[$number] ?? 0) + 1;
        $delay = \min(self::RESTART_DELAY_MAX, 0.1 * 2 ** ($failures - 1));
        $old = $oldPid !== null ? ($this->workers[$oldPid] ?? null) : null;
        if ($old !== null) {
            $this->recycleNotBefore[$number] = \microtime(true) + $delay;
            ($this->log)(\sprintf('%s %s, but its replacement (pid %d) failed: %s; it keeps serving, next attempt in %.1f s', $old->label(), $old->retiringBecause, $newPid, $reason, $delay));
        } else {
            $this->restarts[$number] = \microtime(true) + $delay;
            ($this->log)(\sprintf('replacement of %s (pid %d) failed: %s; restarting in %.1f s', $this->labelOf($number), $newPid, $reason, $delay));
        }
    }

    private function retire(int $pid): void
    {
        $worker = $this->workers[$pid] ?? null;
        if ($worker !== null) {
            $worker->state = WorkerHandle::RETIRING;
            \posix_kill($pid, \SIGTERM);
        }
    }

    private function terminateAll(int $signal): void
    {
        foreach ($this->workers as $pid => $worker) {
            \posix_kill($pid, $signal);
        }
    }

    /**
     * Waits up to $timeout for the workers' pipes and the sidecars' streams, and handles
     * what is readable. While the watchdog watches a worker, it is polled every period()
     * meanwhile (a select() per period; the rest of the master's turn runs as often as without).
     */
    private function pumpPipes(float $timeout): void
    {
        if ($this->watchdog === null) {
            $this->select($timeout);

            return;
        }
        $end = \microtime(true) + $timeout;
        while ($this->watchdog->poll()) {
            $left = $end - \microtime(true);
            if ($left <= 0.0 || $this->select(\min($left, $this->watchdog->period))) {
                return;
            }
        }
        $this->select(\max(0.0, $end - \microtime(true)));
    }

    /** One select(): true when it ended early (something was readable, or a signal came). */
    private function select(float $timeout): bool
    {
        $read = [];
        foreach ($this->workers as $pid => $worker) {
            $read[$pid] = $worker->pipe;
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
                $this->workers[$key]->readMessages();
            } else {
                [$sidecar, $stream] = $extra[$key];
                $sidecar->onReadable($stream, $this->status(...));
            }
        }

        return true;
    }

    /**
     * What `petrel status` and /metrics show: the master's pid and uptime, restarts by
     * reason, and each worker's last status (StatusFile::snapshot()).
     *
     * @return array<string, mixed>
     */
    private function status(): array
    {
        return StatusFile::snapshot($this->workers, $this->startedAt, $this->restartCounts);
    }

    private function writeStatus(): void
    {
        $now = \microtime(true);
        if ($this->statusFile === null || $now - $this->statusWrittenAt < 1.0) {
            return;
        }
        $this->statusWrittenAt = $now;
        $this->statusFile->write($this->status());
    }
}
