<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Process;

use Petrel\Process\PidFile;
use Petrel\Tests\Support\PetrelProcess;
use PHPUnit\Framework\TestCase;

/**
 * The master's supervision at its edges, on a real master process (fixtures/master.php)
 * whose workers serve nothing and do what files in the master's directory say.
 */
final class MasterTest extends TestCase
{
    private string $dir;
    /** @var resource|null */
    private $process = null;

    protected function setUp(): void
    {
        $this->dir = \sys_get_temp_dir() . '/petrel-master-test-' . \getmypid() . '-' . \bin2hex(\random_bytes(4));
        \mkdir($this->dir);
    }

    protected function tearDown(): void
    {
        if ($this->process !== null) {
            $status = \proc_get_status($this->process);
            if ($status['running']) {
                \posix_kill($status['pid'], \SIGTERM);
                PetrelProcess::waitFor(fn (): bool => !\proc_get_status($this->process)['running'], 10, 'the master to stop');
            }
            \proc_close($this->process);
        }
        foreach ((array) \glob("{$this->dir}/*") as $file) {
            @\unlink((string) $file);
        }
        @\rmdir($this->dir);
    }

    /** `petrel stop` waits as long as the master may drain: the status file says how long. */
    public function testTheStatusFileTellsTheGracefulTimeout(): void
    {
        $this->startMaster(workers: 1, gracefulTimeout: 300.0);
        PetrelProcess::waitFor(fn (): bool => isset($this->masterStatus()['graceful_timeout']), 5, 'the status file');
        self::assertSame(300, $this->masterStatus()['graceful_timeout']);
    }

    /**
     * A worker crashed and could not boot again (the APP broke); a reload tried during its
     * back-off failed the same way. The reload cancelled the pending restart and its failure
     * did not bring it back: once the APP was fixed, the number stayed without a worker for
     * good (with --workers=1, the server answered nobody).
     */
    public function testARestartInItsBackOffOutlivesAFailedReload(): void
    {
        $this->startMaster(workers: 1);
        [$worker] = $this->workerPids('ready');
        \touch("{$this->dir}/boot-fails");
        \posix_kill($worker, \SIGKILL);
        PetrelProcess::waitFor(fn (): bool => \str_contains($this->log(), 'restarting in'), 5, 'a restart in its back-off');
        $this->signalMaster(\SIGUSR1);
        PetrelProcess::waitFor(fn (): bool => \str_contains($this->log(), 'reload failed'), 5, 'the reload to fail');
        \unlink("{$this->dir}/boot-fails");
        PetrelProcess::waitFor(fn (): bool => \count($this->workerPids('ready')) === 1 && $this->workerPids('ready') !== [$worker], 15, "a new worker; the master's log:\n" . $this->log());
    }

    /**
     * A worker of the old generation that crashes during a reload is restarted (the old
     * generation serves until the new one is ready), and that restart is retired with the
     * rest of the old generation when the reload succeeds: one worker per number after it.
     * It used to be kept, a worker more than --workers for the master's lifetime.
     */
    public function testAReloadLeavesOneWorkerPerNumberWhenAnOldWorkerCrashedDuringIt(): void
    {
        $this->startMaster(workers: 2);
        $old = $this->workerPids('ready');
        \touch("{$this->dir}/boot-slow");
        $this->signalMaster(\SIGUSR1);
        PetrelProcess::waitFor(fn (): bool => \str_contains($this->log(), 'reloading'), 5, 'the reload to begin');
        \posix_kill($old[0], \SIGKILL);
        PetrelProcess::waitFor(fn (): bool => \str_contains($this->log(), 'reloaded'), 10, 'the reload to end');
        PetrelProcess::waitFor(fn (): bool => \count($this->workerPids()) === 2, 5, "two workers; they are:\n" . \json_encode($this->masterStatus()['workers'] ?? []));
        \usleep(1_500_000); // a restart still due would fork by now
        self::assertCount(2, $this->workerPids(), (string) \json_encode($this->masterStatus()['workers'] ?? []));
        self::assertSame([], \array_intersect($old, $this->workerPids()));
    }

    /**
     * A reload sends the old workers SIGTERM; one that cannot act on it (a handler in an
     * endless loop) was never killed: it ran on at 100 % CPU, only a stop ended it.
     */
    public function testARetiredWorkerStillThereAfterTheGracefulTimeoutIsKilled(): void
    {
        \touch("{$this->dir}/deaf");
        $this->startMaster(workers: 1, gracefulTimeout: 1.0);
        [$deaf] = $this->workerPids('ready');
        \unlink("{$this->dir}/deaf");
        $this->signalMaster(\SIGUSR1);
        PetrelProcess::waitFor(fn (): bool => \str_contains($this->log(), 'reloaded'), 10, 'the reload to end');
        PetrelProcess::waitFor(static fn (): bool => !\file_exists("/proc/{$deaf}") || \str_contains((string) @\file_get_contents("/proc/{$deaf}/stat"), ') Z'), 6, 'the deaf worker to be killed');
        self::assertStringContainsString("worker 1 (pid {$deaf}) still busy 1 s after it was retired: killing it", $this->log());
    }

    /**
     * The first start, a reload and a recycle all give a new worker the boot timeout; a
     * restart after a crash did not: a worker hanging at boot stayed "starting" for ever.
     */
    public function testARestartedWorkerNotReadyWithinTheBootTimeoutIsKilledAndRetried(): void
    {
        $this->startMaster(workers: 1, bootTimeout: 2.0);
        [$worker] = $this->workerPids('ready');
        \touch("{$this->dir}/boot-hangs");
        \posix_kill($worker, \SIGKILL);
        PetrelProcess::waitFor(fn (): bool => \str_contains($this->log(), 'not ready after 2 s: killed'), 8, "the hung restart to be killed; the master's log:\n" . $this->log());
        \unlink("{$this->dir}/boot-hangs");
        PetrelProcess::waitFor(fn (): bool => \count($this->workerPids('ready')) === 1 && $this->workerPids('ready') !== [$worker], 10, 'a new ready worker');
    }

    /**
     * While the workers boot, `petrel status` found no status ("wrote no status yet", exit
     * 1), and a stop then made the start fail ("could not start: stopped while starting",
     * exit 1). The workers are listed as starting now, and a stop is a stop: exit 0.
     */
    public function testWhileWorkersBootTheStatusListsThemAndAStopExitsZero(): void
    {
        \touch("{$this->dir}/boot-hangs");
        $this->startMaster(workers: 2, awaitReady: false);
        PetrelProcess::waitFor(fn (): bool => \count($this->workerPids('starting')) === 2, 10, 'two workers listed as starting');
        $workers = $this->workerPids('starting');
        $this->signalMaster(\SIGTERM);
        $exitCode = null;
        PetrelProcess::waitFor(function () use (&$exitCode): bool {
            \assert($this->process !== null);
            $status = \proc_get_status($this->process);
            $exitCode = $status['exitcode'];

            return !$status['running'];
        }, 10, 'the master to exit');
        self::assertSame(0, $exitCode, $this->log() . (string) @\file_get_contents("{$this->dir}/stdout"));
        self::assertStringContainsString('stopped while starting', $this->log());
        foreach ($workers as $pid) {
            self::assertFalse(\Petrel\Process\PidFile::isAlive($pid));
        }
        self::assertFileDoesNotExist("{$this->dir}/master.pid");
    }

    /**
     * A restart the master cannot fork (no descriptor left for the worker's pipe; the
     * process limit of a container is the same failure) threw out of the master's loop:
     * the master exited ("could not start: …", exit 1) and every worker that was serving
     * stopped with it. It is retried with the back-off now, and the master serves on.
     */
    public function testARestartThatCannotBeForkedIsRetriedAndTheMasterLivesOn(): void
    {
        $this->startMaster(workers: 2);
        [$crashed, $serving] = $this->workerPids('ready');
        $this->holdEveryDescriptor();
        \posix_kill($crashed, \SIGKILL);
        PetrelProcess::waitFor(fn (): bool => \str_contains($this->log(), 'cannot start worker'), 5, "the failed restart to be logged; the master's log:\n" . $this->log());
        self::assertMatchesRegularExpression('/cannot start worker \d: Cannot create a pipe for a new worker: .*Too many open files; retrying in \d+\.\d s/', $this->log());
        self::assertTrue($this->masterRunning(), "the master lives on; its log:\n" . $this->log());
        self::assertTrue(PidFile::isAlive($serving), 'the other worker serves on');
        \unlink("{$this->dir}/descriptors-full");
        PetrelProcess::waitFor(fn (): bool => \count($this->workerPids('ready')) === 2 && !\in_array($crashed, $this->workerPids(), true), 15, "the restart once descriptors are free; the master's log:\n" . $this->log());
    }

    /** A reload whose new workers cannot be forked fails as one that cannot boot: the running workers serve on. */
    public function testAReloadThatCannotForkKeepsTheRunningWorkers(): void
    {
        $this->startMaster(workers: 2);
        $running = $this->workerPids('ready');
        $this->holdEveryDescriptor();
        $this->signalMaster(\SIGUSR1);
        PetrelProcess::waitFor(fn (): bool => \str_contains($this->log(), 'reload failed'), 5, "the reload to fail; the master's log:\n" . $this->log());
        self::assertStringContainsString('reload failed, keeping the running workers: Cannot create a pipe for a new worker', $this->log());
        self::assertTrue($this->masterRunning(), "the master lives on; its log:\n" . $this->log());
        \unlink("{$this->dir}/descriptors-full");
        $this->signalMaster(\SIGUSR1);
        PetrelProcess::waitFor(fn (): bool => \str_contains($this->log(), 'reloaded'), 10, "the next reload to succeed; the master's log:\n" . $this->log());
        foreach ($running as $pid) {
            PetrelProcess::waitFor(static fn (): bool => !PidFile::isAlive($pid), 10, "old worker {$pid} to exit");
        }
    }

    /** A worker whose successor cannot be forked serves on; the recycle is tried again after the back-off. */
    public function testARecycleThatCannotForkLeavesTheOldWorkerServing(): void
    {
        $this->startMaster(workers: 1);
        [$old] = $this->workerPids('ready');
        $this->holdEveryDescriptor();
        \posix_kill($old, \SIGUSR2); // asks to be replaced, as at --max-requests
        PetrelProcess::waitFor(fn (): bool => \str_contains($this->log(), 'its replacement could not be started'), 5, "the failed recycle to be logged; the master's log:\n" . $this->log());
        self::assertTrue($this->masterRunning(), "the master lives on; its log:\n" . $this->log());
        self::assertTrue(PidFile::isAlive($old), 'the old worker serves on');
        \unlink("{$this->dir}/descriptors-full");
        PetrelProcess::waitFor(fn (): bool => \count($this->workerPids('ready')) === 1 && $this->workerPids('ready') !== [$old], 15, "the replacement once descriptors are free; the master's log:\n" . $this->log());
        PetrelProcess::waitFor(static fn (): bool => !PidFile::isAlive($old), 10, 'the old worker to be retired');
    }

    /**
     * A task worker killed by a signal was logged as "was killed by signal 9" and no more.
     * Then with the task its last status named, but a task worker reports "busy" once per
     * busy spell: under back-to-back tasks that was the spell's first task, not the one it
     * died running. Its task slot names that one now; the death is a crash, and one at boot
     * still backs off.
     */
    public function testATaskWorkerKilledDuringTheSecondTaskOfABusySpellIsLoggedWithThatTask(): void
    {
        $this->startMaster(workers: 1, taskWorkers: 1);
        $busy = $this->taskWorkerPid();
        $this->reportStatus($busy, ['activity' => 'busy', 'task' => 'App\\Report::build', 'kill_at' => \microtime(true) + 60]);
        $this->runTask($busy, 'App\\Report::build', \microtime(true) + 60);
        $this->runTask($busy, 'App\\Mail::send', \microtime(true) + 60); // same spell: no status
        \file_put_contents("{$this->dir}/next-boot", 'kill'); // its replacement dies at boot
        \posix_kill($busy, \SIGKILL);
        PetrelProcess::waitFor(fn (): bool => \str_contains($this->log(), 'restarting in'), 5, "the replacement's death at boot; the master's log:\n" . $this->log());
        self::assertMatchesRegularExpression('/task worker 1 \(pid ' . $busy . '\) was killed by signal 9 \(running task App\\\\Mail::send, started \d+\.\d s before\); restarting\n/', $this->log());
        self::assertMatchesRegularExpression('/task worker 1 \(pid \d+\) was killed by signal 9; restarting in 0\.1 s/', $this->log());
        PetrelProcess::waitFor(fn (): bool => ($this->masterStatus()['restarts']['crash'] ?? 0) === 2, 5, 'two crashes in the status');
        self::assertSame(0, $this->masterStatus()['restarts']['overrun']);
    }

    /** Idle after its tasks, within the busy spell its status still tells of: no task is named. */
    public function testATaskWorkerKilledWhileIdleAfterTasksIsLoggedWithNoTask(): void
    {
        $this->startMaster(workers: 1, taskWorkers: 1);
        $idle = $this->taskWorkerPid();
        $this->reportStatus($idle, ['activity' => 'busy', 'task' => 'App\\Report::build', 'kill_at' => \microtime(true) + 60]);
        $this->runTask($idle, 'App\\Report::build', \microtime(true) + 60);
        $this->runTask($idle, null); // it ended
        \posix_kill($idle, \SIGKILL);
        PetrelProcess::waitFor(fn (): bool => \str_contains($this->log(), "(pid {$idle}) was killed"), 5, "the death; the master's log:\n" . $this->log());
        self::assertMatchesRegularExpression('/task worker 1 \(pid ' . $idle . '\) was killed by signal 9; restarting/', $this->log());
    }

    /**
     * Without shared memory (no FFI) there are no task slots: a task worker killed by a
     * signal is logged with the task its last status named, as what it last reported.
     */
    public function testWithoutTaskSlotsATaskWorkerKilledWhileBusyIsLoggedWithTheTaskItLastReported(): void
    {
        $this->startMaster(workers: 1, taskWorkers: 1, ffi: false);
        $busy = $this->taskWorkerPid();
        $this->reportStatus($busy, ['activity' => 'busy', 'task' => 'App\\Report::build', 'kill_at' => \microtime(true) + 60]);
        $this->runTask($busy, 'App\\Mail::send', \microtime(true) + 60); // no slot: nothing written
        \posix_kill($busy, \SIGKILL);
        PetrelProcess::waitFor(fn (): bool => \str_contains($this->log(), "(pid {$busy}) was killed"), 5, "the death; the master's log:\n" . $this->log());
        self::assertMatchesRegularExpression('/task worker 1 \(pid ' . $busy . '\) was killed by signal 9 \(last reported running task App\\\\Report::build, \d+\.\d s before\); restarting/', $this->log());
    }

    /**
     * A task worker its overrun guard ended (exit code 124; or SIGKILL by the guard's kill
     * timer, at the kill time of the task it was running) counted as a crash in the status
     * and /metrics, and one that did so young was restarted with the back-off. It is an
     * "overrun" now, and is restarted at once; also when the task killed was not the first of
     * its busy spell, the one (with its kill time) that its status named.
     */
    public function testATaskWorkerItsOverrunGuardEndedIsCountedAsAnOverrunAndRestartedAtOnce(): void
    {
        $this->startMaster(workers: 1, taskWorkers: 1);
        $stuck = $this->taskWorkerPid();
        $this->reportStatus($stuck, ['activity' => 'busy', 'task' => 'App\\Report::build', 'kill_at' => \microtime(true) + 60]);
        $this->runTask($stuck, 'App\\Report::build', \microtime(true) + 60);
        $killAt = \microtime(true) + 0.3;
        $this->runTask($stuck, 'App\\Mail::send', $killAt); // same spell: no status
        \file_put_contents("{$this->dir}/next-boot", '124'); // its replacement overruns at once
        \usleep((int) \max(0, ($killAt - \microtime(true)) * 1e6));
        \posix_kill($stuck, \SIGKILL); // as its kill timer would
        PetrelProcess::waitFor(fn (): bool => \str_contains($this->log(), 'exited with code 124'), 5, "the replacement's exit; the master's log:\n" . $this->log());
        self::assertMatchesRegularExpression("/task worker 1 \\(pid {$stuck}\\) was killed by signal 9 while running task App\\\\Mail::send \\(its overrun guard's kill timer; started \\d+\\.\\d s before\\); restarting\\n/", $this->log());
        self::assertMatchesRegularExpression('/task worker 1 \(pid \d+\) exited with code 124; restarting\n/', $this->log());
        PetrelProcess::waitFor(fn (): bool => ($this->masterStatus()['restarts']['overrun'] ?? 0) === 2, 5, "two overruns in the status; it says:\n" . \json_encode($this->masterStatus()['restarts'] ?? null));
        self::assertSame(0, $this->masterStatus()['restarts']['crash']);
        PetrelProcess::waitFor(fn (): bool => !\in_array($this->taskWorkerPid(), [0, $stuck], true), 5, 'a task worker serving again');
    }

    /** Makes the master's sidecar take every descriptor it has (fixtures/master.php), and waits until it holds them. */
    private function holdEveryDescriptor(): void
    {
        \touch("{$this->dir}/descriptors-full");
        \assert($this->process !== null);
        $master = \proc_get_status($this->process)['pid'];
        \preg_match('/^Max open files +(\d+)/m', (string) \file_get_contents("/proc/{$master}/limits"), $limit);
        PetrelProcess::waitFor(static fn (): bool => \count((array) \glob("/proc/{$master}/fd/*")) >= (int) ($limit[1] ?? 64), 5, 'the master to run out of descriptors');
    }

    private function masterRunning(): bool
    {
        return $this->process !== null && \proc_get_status($this->process)['running'];
    }

    /** @param bool $ffi false: the master runs with ffi.enable=0, so without task slots */
    private function startMaster(int $workers, float $gracefulTimeout = 5.0, float $bootTimeout = 10.0, bool $awaitReady = true, int $taskWorkers = 0, bool $ffi = true): void
    {
        $command = [\PHP_BINARY, ...($ffi ? [] : ['-d', 'ffi.enable=0']), __DIR__ . '/fixtures/master.php', $this->dir, (string) $workers, (string) $gracefulTimeout, (string) $bootTimeout, (string) $taskWorkers];
        $this->process = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', "{$this->dir}/stdout", 'a'], 2 => ['file', "{$this->dir}/stdout", 'a']], $pipes);
        self::assertIsResource($this->process);
        if ($awaitReady) {
            PetrelProcess::waitFor(fn (): bool => \count($this->workerPids('ready')) === $workers + $taskWorkers, 10, 'the workers to be ready');
        }
    }

    /** The ready task worker's pid (fixtures with one task worker), or 0 when none is. */
    private function taskWorkerPid(): int
    {
        foreach ($this->masterStatus()['workers'] ?? [] as $worker) {
            if (\is_array($worker) && $worker['kind'] === 'task' && $worker['state'] === 'ready') {
                return (int) $worker['pid'];
            }
        }

        return 0;
    }

    /**
     * Makes worker $pid report $status to its master, and waits until it did.
     *
     * @param array<string, mixed> $status
     */
    private function reportStatus(int $pid, array $status): void
    {
        \file_put_contents("{$this->dir}/report-{$pid}.json", \json_encode($status, \JSON_THROW_ON_ERROR));
        PetrelProcess::waitFor(fn (): bool => !\file_exists("{$this->dir}/report-{$pid}.json"), 5, "worker {$pid} to report its status");
    }

    /** Makes task worker $pid write in its task slot that $task starts (null: that its task ended), and waits until it did. */
    private function runTask(int $pid, ?string $task, ?float $killAt = null): void
    {
        \file_put_contents("{$this->dir}/task-{$pid}.json", \json_encode($task !== null ? ['task' => $task, 'kill_at' => $killAt] : new \stdClass(), \JSON_THROW_ON_ERROR));
        PetrelProcess::waitFor(fn (): bool => !\file_exists("{$this->dir}/task-{$pid}.json"), 5, "task worker {$pid} to write its task slot");
    }

    private function signalMaster(int $signal): void
    {
        \assert($this->process !== null);
        \posix_kill(\proc_get_status($this->process)['pid'], $signal);
    }

    /** @return list<int> the workers the master's status file lists (in $state only, if given) */
    private function workerPids(?string $state = null): array
    {
        $pids = [];
        foreach ($this->masterStatus()['workers'] ?? [] as $worker) {
            if (\is_array($worker) && ($state === null || $worker['state'] === $state)) {
                $pids[] = (int) $worker['pid'];
            }
        }
        \sort($pids);

        return $pids;
    }

    /** @return array<string, mixed> */
    private function masterStatus(): array
    {
        $status = \json_decode((string) @\file_get_contents("{$this->dir}/status.json"), true);

        return \is_array($status) ? $status : [];
    }

    private function log(): string
    {
        return (string) @\file_get_contents("{$this->dir}/master.log") . (string) @\file_get_contents("{$this->dir}/stdout");
    }
}
