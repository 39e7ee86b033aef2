<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\PetrelProcess;
use Petrel\Tests\Support\RawHttp;

use function Petrel\go;
use function Petrel\sleep;

/**
 * --task-workers end to end: examples/tasks.php (/block?ms=N, /), plus /task?do=… running
 * the test task (tests/Integration/Task/Fixture/TestTask, autoloaded in the task workers).
 */
final class TaskWorkersTest extends AsyncTestCase
{
    private static string $app;

    public static function setUpBeforeClass(): void
    {
        self::$app = \sys_get_temp_dir() . '/petrel-tasks-app-' . \getmypid() . '.php';
        $example = \var_export(\dirname(__DIR__, 2) . '/examples/tasks.php', true);
        \file_put_contents(self::$app, <<<PHP
            <?php
            declare(strict_types=1);

            use Petrel\\Http\\Request;
            use Petrel\\Http\\Response;
            use Petrel\\Tests\\Integration\\Task\\Fixture\\TestTask;

            \$example = require {$example};

            return static function (Request \$request) use (\$example): Response {
                if (\$request->getPath() !== '/task') {
                    return \$example(\$request);
                }
                try {
                    \$timeout = \$request->getQueryParam('timeout');
                    \$result = \\Petrel\\task(TestTask::class, [(string) \$request->getQueryParam('do'), (int) \$request->getQueryParam('arg', '0')], \is_string(\$timeout) ? (float) \$timeout : null);

                    return Response::json(['result' => \$result]);
                } catch (\\Throwable \$e) {
                    return Response::json(['class' => \$e::class, 'message' => \$e->getMessage()], 500);
                }
            };
            PHP);
    }

    public static function tearDownAfterClass(): void
    {
        @\unlink(self::$app);
    }

    public function testBlockingTasksRunBesideTheWorkerCrashesAreReportedAndTimeoutsFail(): void
    {
        $server = (new PetrelProcess(self::$app, ['--workers=1', '--task-workers=2']))->start();
        $taskPids = static fn (): array => self::taskWorkerPids($server->status());
        PetrelProcess::waitFor(static fn () => \count($taskPids()) === 2, 10, 'two ready task workers');

        // Two blocking 500 ms tasks overlap, and / answers while they run.
        $timeline = $this->async(static function () use ($server): array {
            $started = \microtime(true);
            $blocks = [];
            foreach ([1, 2] as $i) {
                $blocks[] = go(static function () use ($server, $started): array {
                    $response = RawHttp::get($server->address, '/block?ms=500');

                    return [$response->status, $response->body, \microtime(true) - $started];
                });
            }
            sleep(0.1);
            $hello = RawHttp::get($server->address, '/');
            $helloAt = \microtime(true) - $started;

            return ['hello' => [$hello->status, $helloAt], 'blocks' => \array_map(static fn ($c) => $c->join(), $blocks)];
        }, 20.0);
        self::assertSame(200, $timeline['hello'][0]);
        foreach ($timeline['blocks'] as [$status, $body, $doneAt]) {
            self::assertSame(200, $status);
            self::assertSame("blocked 500 ms in a task worker\n", $body);
            self::assertGreaterThan($timeline['hello'][1], $doneAt, '/ answered while the tasks ran');
        }
        self::assertLessThan(1.0, \max(\array_column($timeline['blocks'], 2)), 'the two 500 ms tasks overlapped (one after the other takes 1 s)');

        // A task that kills its worker: a clear error, the worker is replaced, the next task works.
        $before = $taskPids();
        $crash = $this->async(static fn () => RawHttp::get($server->address, '/task?do=kill'));
        self::assertSame(500, $crash->status);
        self::assertMatchesRegularExpression('/TaskWorkerDiedException.*TestTask failed: task worker pid \d+ died while running it/', $crash->body);
        PetrelProcess::waitFor(static fn () => \count($taskPids()) === 2 && \array_diff($before, $taskPids()) !== [], 10, 'a replacement task worker');
        // Its task slot names it (its busy status may name the block task it ran before).
        self::assertMatchesRegularExpression(
            self::hasTaskSlots()
                ? '/task worker \d \(pid \d+\) was killed by signal 9 \(running task \S+TestTask, started \d+\.\d s before\); restarting/'
                : '/task worker \d \(pid \d+\) was killed by signal 9 \(last reported running task \S+, \d+\.\d s before\); restarting/',
            $server->log(),
        );
        $echo = $this->async(static fn () => RawHttp::get($server->address, '/task?do=echo&arg=5'));
        self::assertSame(200, $echo->status, $echo->body);
        self::assertStringContainsString('"arg":5', $echo->body);

        // An exception thrown by the task comes back with its class.
        $thrown = $this->async(static fn () => RawHttp::get($server->address, '/task?do=throw'));
        self::assertStringContainsString('"class":"DomainException","message":"bad input on purpose"', $thrown->body);

        // A task past its timeout fails with a timeout error.
        $late = $this->async(static fn () => RawHttp::get($server->address, '/task?do=sleep&arg=1500&timeout=0.2'));
        self::assertSame(500, $late->status);
        self::assertStringContainsString('TaskTimeoutException', $late->body);
        self::assertStringContainsString('did not finish within 0.2 s', $late->body);

        $status = PetrelProcess::runCli(['status', "--pid-file={$server->pidFile}"]);
        self::assertMatchesRegularExpression('/1 worker\(s\), 2 task worker\(s\)/', $status);
        self::assertMatchesRegularExpression('/^task 1 +\d+ +(idle|busy)/m', $status);
        self::assertSame(0, $server->stop());
    }

    public function testAFullQueueIsRefusedAndAStopLetsTheRunningTaskFinish(): void
    {
        $server = (new PetrelProcess(self::$app, ['--workers=1', '--task-workers=1', '--task-queue=1']))->start();
        PetrelProcess::waitFor(static fn () => \count(self::taskWorkerPids($server->status())) === 1, 10, 'a ready task worker');
        $socket = \preg_replace('/\.pid$/', '', $server->pidFile) . '.tasks.sock';
        self::assertFileExists($socket);
        $results = $this->async(static function () use ($server): array {
            $slow = go(static fn () => RawHttp::get($server->address, '/block?ms=800')->body);
            sleep(0.2);
            $refused = RawHttp::get($server->address, '/block?ms=1');
            $server->signal(\SIGTERM);

            return [$refused, $slow->join()];
        }, 20.0);
        self::assertSame(503, $results[0]->status);
        self::assertStringContainsString('the task queue is full', $results[0]->body);
        self::assertSame("blocked 800 ms in a task worker\n", $results[1], 'the running task finished during the stop');
        self::assertSame(0, $server->stop());
        self::assertFileDoesNotExist($socket);
    }

    /**
     * Ctrl-C signals the terminal's whole process group: the task workers stopped with the
     * master, while requests draining in the HTTP workers still submit tasks. A task worker
     * ignores SIGINT (during a task too, when it is blocked); its master stops it last.
     */
    public function testATaskWorkerIgnoresSigintItsMasterStopsIt(): void
    {
        $server = (new PetrelProcess(self::$app, ['--workers=1', '--task-workers=1']))->start();
        PetrelProcess::waitFor(static fn () => \count(self::taskWorkerPids($server->status())) === 1, 10, 'a ready task worker');
        [$taskWorker] = self::taskWorkerPids($server->status());
        $bodies = $this->async(static function () use ($server, $taskWorker): array {
            $during = go(static fn () => RawHttp::get($server->address, '/block?ms=300')->body);
            sleep(0.1);
            \posix_kill($taskWorker, \SIGINT); // during a task
            $first = $during->join();
            \posix_kill($taskWorker, \SIGINT); // idle
            sleep(0.5);

            return [$first, RawHttp::get($server->address, '/block?ms=10')->body];
        }, 20.0);
        self::assertSame(["blocked 300 ms in a task worker\n", "blocked 10 ms in a task worker\n"], $bodies);
        self::assertTrue(\Petrel\Process\PidFile::isAlive($taskWorker), "the task worker serves on; the log:\n" . $server->log());
        self::assertSame(0, $server->stop());
        self::assertFalse(\Petrel\Process\PidFile::isAlive($taskWorker));
    }

    /**
     * A task that submits a task: refused with why. It was told "No task workers here:
     * start the server with --task-workers=N", which it had been.
     */
    public function testATaskThatSubmitsATaskIsToldWhyItCannot(): void
    {
        $server = (new PetrelProcess(self::$app, ['--workers=1', '--task-workers=1']))->start();
        PetrelProcess::waitFor(static fn () => \count(self::taskWorkerPids($server->status())) === 1, 10, 'a ready task worker');
        $nested = RawHttp::get($server->address, '/task?do=nested&arg=3');
        self::assertSame(500, $nested->status, $nested->body);
        self::assertStringContainsString('"class":"Petrel\\\\Task\\\\TaskError"', $nested->body);
        self::assertMatchesRegularExpression('/Task [^ ]+TestTask cannot be submitted from a task worker \\(pid \\d+\\)/', $nested->body);
        self::assertStringNotContainsString('--task-workers', $nested->body);
        self::assertSame(200, RawHttp::get($server->address, '/task?do=echo&arg=4')->status, 'the task worker serves on');
        self::assertSame(0, $server->stop());
    }

    /**
     * A task that started every() in its task worker: a tick running when the worker stops
     * finishes (within the graceful timeout) instead of being cut by the process's exit.
     */
    public function testATickRunningInATaskWorkerFinishesAtTheStop(): void
    {
        $ticks = \sys_get_temp_dir() . '/petrel-task-ticks-' . \getmypid() . '.txt';
        @\unlink($ticks);
        \putenv("PETREL_TEST_TICKS={$ticks}");
        try {
            $server = (new PetrelProcess(self::$app, ['--workers=1', '--task-workers=1']))->start();
            PetrelProcess::waitFor(static fn () => \count(self::taskWorkerPids($server->status())) === 1, 10, 'a ready task worker');
            self::assertSame('{"result":"ticking"}', RawHttp::get($server->address, '/task?do=every&arg=50')->body);
            $lines = static fn (): array => \file_exists($ticks) ? \file($ticks, \FILE_IGNORE_NEW_LINES) ?: [] : [];
            PetrelProcess::waitFor(static fn () => \str_starts_with((string) ($lines()[\count($lines()) - 1] ?? ''), 'start'), 10, 'a tick running');
            self::assertSame(0, $server->stop());
            $log = $lines();
            self::assertSame(
                \count(\preg_grep('/^start /', $log) ?: []),
                \count(\preg_grep('/^end /', $log) ?: []),
                "every tick that started ended:\n" . \implode("\n", $log) . "\n" . $server->log(),
            );
        } finally {
            \putenv('PETREL_TEST_TICKS');
            @\unlink($ticks);
        }
    }

    /**
     * A task that never returns (an endless loop) held the only task worker for ever: its
     * caller got a timeout, and so did every task after it, queued behind it, until a restart.
     * The task worker now ends itself once the task runs past its deadline plus a grace; the
     * master replaces it at once, and the task queued meanwhile runs on the new one. That end
     * was counted as a crash in `petrel status` and /metrics: it is an overrun.
     */
    public function testATaskRunningPastItsDeadlineEndsItsTaskWorkerAndTheTaskQueuedBehindRuns(): void
    {
        $server = (new PetrelProcess(self::$app, ['--workers=1', '--task-workers=1', '--task-timeout=1', '--graceful-timeout=1']))->start();
        PetrelProcess::waitFor(static fn () => \count(self::taskWorkerPids($server->status())) === 1, 10, 'a ready task worker');
        [$stuck] = self::taskWorkerPids($server->status());
        [$spin, $next, $waited] = $this->async(static function () use ($server): array {
            $spin = RawHttp::get($server->address, '/task?do=spin');
            $submitted = \microtime(true);
            $next = RawHttp::get($server->address, '/task?do=echo&arg=3&timeout=6');

            return [$spin, $next, \microtime(true) - $submitted];
        }, 15.0);
        self::assertSame(500, $spin->status);
        self::assertStringContainsString('did not finish within 1 s', $spin->body);
        self::assertSame(200, $next->status, "{$next->body}\n{$server->log()}");
        self::assertStringContainsString('"arg":3', $next->body);
        self::assertLessThan(4.5, $waited, 'the task queued behind the endless one ran on its replacement');
        self::assertStringNotContainsString("\"pid\":{$stuck},", $next->body, 'a new task worker ran it');
        self::assertMatchesRegularExpression(
            '/task worker 1 \(pid ' . $stuck . '\) exited with code 124 \(task \S+TestTask ran \d+\.\d s, \d+\.\d s past its deadline[^\n]*\); restarting/',
            $server->log(),
        );
        PetrelProcess::waitFor(static fn () => ($server->status()['restarts']['overrun'] ?? 0) === 1, 5, 'the overrun in the status');
        self::assertStringContainsString('Restarts: overrun 1', PetrelProcess::runCli(['status', "--pid-file={$server->pidFile}"]));
        self::assertSame(0, $server->status()['restarts']['crash']);
        self::assertSame(0, $server->stop());
    }

    /**
     * A task stuck in a C call past its deadline (a read PHP retries when a signal interrupts
     * it) is ended by its overrun guard's kill timer. The master logged "killed by signal 9"
     * and counted a crash: it names the task and counts an overrun now. Here it follows
     * another task in the same busy spell, the task the worker's one "busy" status named:
     * its task slot names the task it died running.
     */
    public function testATaskWorkerItsKillTimerEndedIsLoggedWithItsTaskAndCountedAsAnOverrun(): void
    {
        if (\Petrel\Task\Internal\KillTimer::create() === null || !self::hasTaskSlots()) {
            self::markTestSkipped('no kill timer here (Linux with ext-ffi only)');
        }
        $server = (new PetrelProcess(self::$app, ['--workers=1', '--task-workers=1', '--task-timeout=1']))->start();
        PetrelProcess::waitFor(static fn () => \count(self::taskWorkerPids($server->status())) === 1, 10, 'a ready task worker');
        [$stuck] = self::taskWorkerPids($server->status());
        $statuses = $this->async(static function () use ($server): array {
            $block = go(static fn () => RawHttp::get($server->address, '/block?ms=300')->status);
            sleep(0.1); // the hang waits in the queue: it starts as the block task ends
            $hang = RawHttp::get($server->address, '/task?do=hang')->status;

            return [$block->join(), $hang];
        }, 15.0);
        self::assertSame([200, 500], $statuses);
        PetrelProcess::waitFor(static fn () => \str_contains($server->log(), "(pid {$stuck}) was killed"), 10, 'the kill timer');
        self::assertMatchesRegularExpression("/task worker 1 \\(pid {$stuck}\\) was killed by signal 9 while running task \\S+TestTask \\(its overrun guard's kill timer; started \\d+\\.\\d s before\\); restarting\\n/", $server->log());
        PetrelProcess::waitFor(static fn () => ($server->status()['restarts']['overrun'] ?? 0) === 1, 5, 'the overrun in the status');
        self::assertSame(0, $server->status()['restarts']['crash']);
        self::assertSame(0, $server->stop());
    }

    /**
     * kill -9 (or the OOM killer) during the second of two back-to-back tasks: the master
     * named the first, which the worker's one "busy" status of the spell named ("last
     * reported running task usleep"). Its task slot names the second now; and none once
     * the worker is idle, though its status still says busy with the last spell's task.
     */
    public function testATaskWorkerKilledIsLoggedWithTheTaskItWasRunningAndNoneWhenIdle(): void
    {
        if (!self::hasTaskSlots()) {
            self::markTestSkipped('no task slots here (ext-ffi)');
        }
        $server = (new PetrelProcess(self::$app, ['--workers=1', '--task-workers=1']))->start();
        PetrelProcess::waitFor(static fn () => \count(self::taskWorkerPids($server->status())) === 1, 10, 'a ready task worker');
        [$busy] = self::taskWorkerPids($server->status());
        $statuses = $this->async(static function () use ($server, $busy): array {
            $block = go(static fn () => RawHttp::get($server->address, '/block?ms=300')->status);
            sleep(0.1);
            $sleep = go(static fn () => RawHttp::get($server->address, '/task?do=sleep&arg=5000&timeout=10')->status);
            $blocked = $block->join(); // the sleep task starts now, in the same busy spell
            sleep(0.2);
            \posix_kill($busy, \SIGKILL);

            return [$blocked, $sleep->join()];
        }, 15.0);
        self::assertSame([200, 500], $statuses);
        PetrelProcess::waitFor(static fn () => \str_contains($server->log(), "(pid {$busy}) was killed"), 5, 'the death');
        self::assertMatchesRegularExpression("/task worker 1 \\(pid {$busy}\\) was killed by signal 9 \\(running task \\S+TestTask, started \\d+\\.\\d s before\\); restarting\\n/", $server->log());

        PetrelProcess::waitFor(static fn () => \count(self::taskWorkerPids($server->status())) === 1 && self::taskWorkerPids($server->status()) !== [$busy], 10, 'a replacement');
        [$idle] = self::taskWorkerPids($server->status());
        self::assertSame(200, RawHttp::get($server->address, '/block?ms=10')->status);
        \posix_kill($idle, \SIGKILL); // idle, within the busy spell its status tells of
        PetrelProcess::waitFor(static fn () => \str_contains($server->log(), "(pid {$idle}) was killed"), 5, 'the death');
        self::assertMatchesRegularExpression("/task worker 1 \\(pid {$idle}\\) was killed by signal 9; restarting/", $server->log());
        self::assertSame(0, $server->stop());
    }

    /** Whether a master here has task slots (shared memory through FFI). */
    private static function hasTaskSlots(): bool
    {
        return \Petrel\Process\Internal\TaskSlots::map(1) !== null;
    }

    /**
     * @param array<string, mixed> $status
     * @return list<int>
     */
    private static function taskWorkerPids(array $status): array
    {
        $pids = [];
        foreach ($status['workers'] ?? [] as $worker) {
            if (\is_array($worker) && ($worker['kind'] ?? '') === 'task' && ($worker['state'] ?? '') === 'ready') {
                $pids[] = (int) $worker['pid'];
            }
        }
        \sort($pids);

        return $pids;
    }
}
