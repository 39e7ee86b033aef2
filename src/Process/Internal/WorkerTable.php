<?php

declare(strict_types=1);

namespace Petrel\Process\Internal;

use Closure;
use Petrel\Coroutine\Scheduler;
use Petrel\Observability\Internal\BlockingWatchdog;
use Petrel\Observability\Log;
use Petrel\Process\MasterConfig;
use Petrel\Process\ProcessException;
use Petrel\Process\Sidecar;
use Petrel\Process\WorkerContext;
use Throwable;

/**
 * The master's worker processes, by pid: forks them (a pipe each, and a blocking-watchdog
 * slot for an HTTP worker, a task slot for a task worker), signals them and reaps them.
 *
 * Worker numbers run 1..slots(): the workers, then the task workers. Several processes may
 * share a number for a while (a recycle's successor or a reload's new generation beside the
 * worker it replaces); a pid is unique.
 *
 * The watchdog (MasterConfig::$blockThreshold) is mapped by startWatchdog() before the first
 * fork; each HTTP worker process claims a slot at its fork and frees it when it is reaped.
 * The task slots (TaskSlots) likewise, by startTaskSlots(), for the task worker processes.
 *
 * @internal
 */
final class WorkerTable
{
    /**
     * What a new worker puts back to SIG_DFL, blocked across its fork: the signals
     * Master::run() handles (TERM, INT, USR1, CHLD), and USR2, whose handler a process
     * embedding the master may have set. SIGHUP (Master::run() handles it too) is blocked
     * as well, and ignored by the worker: a terminal that closes signals its whole process
     * group, and the master stops the workers gracefully then.
     */
    private const RESET_SIGNALS = [\SIGTERM, \SIGINT, \SIGUSR1, \SIGUSR2, \SIGCHLD, \SIGHUP];

    /** @var array<int, WorkerHandle> by pid, in the order they were forked */
    private array $workers = [];
    private ?BlockingWatchdog $watchdog = null;
    private ?TaskSlots $taskSlots = null;

    /**
     * @param Closure(WorkerContext): int $workerEntry
     * @param Closure(WorkerContext): int|null $taskWorkerEntry
     * @param list<Sidecar> $sidecars the master's: their streams are closed in each worker
     * @param Closure(string): void $log
     */
    public function __construct(
        private readonly MasterConfig $config,
        private readonly Closure $workerEntry,
        private readonly ?Closure $taskWorkerEntry,
        private readonly array $sidecars,
        private readonly Closure $log,
    ) {
    }

    /** Maps the blocking watchdog, when MasterConfig::$blockThreshold asks for one and FFI allows it. */
    public function startWatchdog(): void
    {
        if ($this->config->blockThreshold <= 0) {
            return;
        }
        try {
            // Room for a reload's new generation beside the old one still draining, and more.
            $this->watchdog = new BlockingWatchdog($this->config->blockThreshold, \max(64, 4 * $this->config->workers));
        } catch (\RuntimeException $error) {
            ($this->log)("the blocking detector is off: {$error->getMessage()}");
        }
    }

    /** Maps the task workers' slots, when there are task workers and FFI allows it (TaskSlots::map()). */
    public function startTaskSlots(): void
    {
        $this->taskSlots = TaskSlots::map($this->config->taskWorkers);
    }

    /** The blocking watchdog the master's wait polls, or null when there is none. */
    public function watchdog(): ?BlockingWatchdog
    {
        return $this->watchdog;
    }

    /** Worker numbers 1..slots(): the workers, then the task workers. */
    public function slots(): int
    {
        return $this->config->workers + $this->config->taskWorkers;
    }

    /** "worker 2" or "task worker 1", for logs and process titles. */
    public function labelOf(int $number): string
    {
        return ($this->isTask($number) ? 'task worker ' : 'worker ') . $this->numberInKind($number);
    }

    /** @return array<int, WorkerHandle> the live (not yet reaped) workers, by pid */
    public function all(): array
    {
        return $this->workers;
    }

    public function get(int $pid): ?WorkerHandle
    {
        return $this->workers[$pid] ?? null;
    }

    public function isEmpty(): bool
    {
        return $this->workers === [];
    }

    public function count(): int
    {
        return \count($this->workers);
    }

    /** True while an HTTP worker (one that may submit tasks) is alive. */
    public function hasHttpWorkers(): bool
    {
        foreach ($this->workers as $worker) {
            if ($worker->kind === WorkerHandle::HTTP) {
                return true;
            }
        }

        return false;
    }

    /**
     * Forks one worker process of every number, in order: all or none. When one cannot be
     * forked, those forked already are retired (none serves yet), so a failed reload does
     * not leave half a generation running beside the old one.
     *
     * @return list<int> their pids
     * @throws ProcessException
     */
    public function spawnAll(): array
    {
        $pids = [];
        try {
            for ($number = 1; $number <= $this->slots(); $number++) {
                $pids[] = $this->spawn($number);
            }
        } catch (ProcessException $error) {
            foreach ($pids as $pid) {
                $this->retire($pid);
            }
            throw $error;
        }

        return $pids;
    }

    /**
     * Forks a worker process for $number; it starts in state STARTING.
     *
     * @return int its pid
     * @throws ProcessException if the pipe or the fork cannot be had (no descriptor left,
     *         the process limit reached): the caller retries later, as for a worker that
     *         cannot boot; the master must not end over it
     */
    public function spawn(int $number): int
    {
        $slot = $this->isTask($number) ? null : $this->watchdog?->claim();
        if ($slot === null && $this->watchdog !== null && !$this->isTask($number)) {
            ($this->log)("{$this->labelOf($number)} starts without the blocking detector: all {$this->watchdog->capacity} slots are in use");
        }
        $cells = $slot !== null ? $this->watchdog?->cells($slot) : null;
        $taskSlot = $this->isTask($number) ? $this->taskSlots?->claim() : null;
        if ($taskSlot === null && $this->taskSlots !== null && $this->isTask($number)) {
            ($this->log)("{$this->labelOf($number)} starts without a task slot: all {$this->taskSlots->capacity} are in use");
        }
        $pair = @\stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        if ($pair === false) {
            $this->releaseSlots($slot, $taskSlot);
            throw new ProcessException('Cannot create a pipe for a new worker: ' . \preg_replace('/^stream_socket_pair\(\): /', '', \error_get_last()['message'] ?? 'unknown error'));
        }
        // The signals a worker resets are blocked across the fork, so a SIGTERM sent to a
        // worker that has not run yet (a stop right after a recycle started, on a loaded
        // machine) waits until the child has put them back to SIG_DFL. Unblocked, it ran the
        // master's handler inherited by the child (a flag on the child's copy of Master): the
        // worker never stopped, and the master killed it after --graceful-timeout.
        \pcntl_sigprocmask(\SIG_BLOCK, self::RESET_SIGNALS, $mask);
        $pid = \pcntl_fork();
        if ($pid !== 0) {
            \pcntl_sigprocmask(\SIG_SETMASK, $mask);
        }
        if ($pid === -1) {
            $this->releaseSlots($slot, $taskSlot);
            throw new ProcessException('fork() failed: ' . \pcntl_strerror(\pcntl_get_last_error()));
        }
        if ($pid === 0) {
            \fclose($pair[0]);
            exit($this->runWorker($number, $pair[1], $cells, $taskSlot, $mask));
        }
        if ($slot !== null) {
            $this->watchdog?->watch($slot, $pid);
        }
        \fclose($pair[1]);
        \stream_set_blocking($pair[0], false);
        $kind = $this->isTask($number) ? WorkerHandle::TASK : WorkerHandle::HTTP;
        $this->workers[$pid] = new WorkerHandle($pid, $number, $pair[0], $kind, $this->numberInKind($number), $taskSlot);

        return $pid;
    }

    /**
     * Collects exited workers without blocking, reading what each said last (on its pipe;
     * a task worker's task slot too) and freeing its slots.
     *
     * @return list<array{WorkerHandle, string}> each with a description of how it ended
     */
    public function reap(): array
    {
        $exited = [];
        while (($pid = \pcntl_waitpid(-1, $status, \WNOHANG)) > 0) {
            $worker = $this->workers[$pid] ?? null;
            if ($worker === null) {
                continue;
            }
            unset($this->workers[$pid]);
            $this->watchdog?->forget($pid);
            $this->taskSlots?->forget($worker);
            $worker->readMessages();
            @\fclose($worker->pipe);
            $reason = \pcntl_wifsignaled($status)
                ? 'was killed by signal ' . \pcntl_wtermsig($status)
                : 'exited with code ' . \pcntl_wexitstatus($status);
            $exited[] = [$worker, $reason];
        }

        return $exited;
    }

    /**
     * A graceful stop for one worker, which is now RETIRING (its exit is expected); none if
     * gone. killOverdue() ends it if it is still there after the graceful timeout.
     */
    public function retire(int $pid): void
    {
        $worker = $this->workers[$pid] ?? null;
        if ($worker !== null) {
            $worker->state = WorkerHandle::RETIRING;
            $worker->retiredAt ??= \microtime(true);
            \posix_kill($pid, \SIGTERM);
        }
    }

    /**
     * SIGKILL to the retired workers still there after MasterConfig::$gracefulTimeout: a
     * worker drains its requests within that time and exits, so one still there cannot (a
     * handler in an endless loop, a task that never ends with its SIGTERM blocked). Without
     * this, a reload or a recycle left it running for ever, a core at 100 %.
     */
    public function killOverdue(): void
    {
        $now = \microtime(true);
        foreach ($this->workers as $pid => $worker) {
            if ($worker->retiredAt !== null && $now - $worker->retiredAt > $this->config->gracefulTimeout) {
                $worker->retiredAt = \INF; // once
                ($this->log)(\sprintf('%s (pid %d) still busy %s s after it was retired: killing it', $worker->label(), $pid, $this->config->gracefulTimeout));
                \posix_kill($pid, \SIGKILL);
            }
        }
    }

    /** Sends $signal to every live worker, or to those of $kind (WorkerHandle::HTTP, ::TASK). */
    public function signalAll(int $signal, ?string $kind = null): void
    {
        foreach ($this->workers as $pid => $worker) {
            if ($kind === null || $worker->kind === $kind) {
                \posix_kill($pid, $signal);
            }
        }
    }

    /** SIGKILL to every worker, then reaps them all: for a start that failed. */
    public function killAll(): void
    {
        $this->signalAll(\SIGKILL);
        while ($this->workers !== []) {
            $this->reap();
            \usleep(10000);
        }
    }

    /**
     * In the child, right after fork: forget the master's state, then run the entry.
     *
     * @param list<int> $mask the signal mask before the fork, restored once the master's
     *                        handlers are gone (a SIGTERM that came meanwhile ends the worker)
     */
    private function runWorker(int $number, mixed $pipe, ?\FFI\CData $watchdogCells, ?TaskSlot $taskSlot, array $mask): int
    {
        foreach (self::RESET_SIGNALS as $signal) {
            \pcntl_signal($signal, $signal === \SIGHUP ? \SIG_IGN : \SIG_DFL);
        }
        \pcntl_sigprocmask(\SIG_SETMASK, $mask);
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
        $this->taskSlots = null;
        \mt_srand(\random_int(0, \PHP_INT_MAX));
        Scheduler::reset();
        $label = $this->labelOf($number);
        @\cli_set_process_title("{$this->config->title}: {$label}");
        $context = new WorkerContext($this->numberInKind($number), $pipe, $watchdogCells, $taskSlot);
        OpcacheRevalidation::run(); // the code on disk, not the master's first compile of it
        try {
            $entry = $this->isTask($number) ? $this->taskWorkerEntry : $this->workerEntry;
            \assert($entry !== null);

            return $entry($context);
        } catch (Throwable $error) {
            $context->fail($error->getMessage());
            Log::stderr("petrel: {$label} failed: {$error}\n");

            return 70;
        }
    }

    /** Frees the slots claimed for a worker that could not be forked. */
    private function releaseSlots(?int $watchdogSlot, ?TaskSlot $taskSlot): void
    {
        if ($watchdogSlot !== null) {
            $this->watchdog?->release($watchdogSlot);
        }
        if ($taskSlot !== null) {
            $this->taskSlots?->release($taskSlot);
        }
    }

    private function isTask(int $number): bool
    {
        return $number > $this->config->workers;
    }

    /** Task workers count from 1 after the workers' numbers. */
    private function numberInKind(int $number): int
    {
        return $this->isTask($number) ? $number - $this->config->workers : $number;
    }
}
