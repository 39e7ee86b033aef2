<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Task;

use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\TimeoutException;
use Petrel\Socket\SocketServer;
use Petrel\Task\Internal\KillTimer;
use Petrel\Task\TaskClient;
use Petrel\Task\TaskQueueFullException;
use Petrel\Task\TaskServer;
use Petrel\Task\TaskTimeoutException;
use Petrel\Task\TaskWorkerDiedException;
use Petrel\Tests\Integration\Task\Fixture\TestTask;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\go;
use function Petrel\run;
use function Petrel\sleep;
use function Petrel\timeout;

/**
 * A real TaskServer in forked child processes (the task workers) on a Unix socket, and a
 * TaskClient in this process.
 */
final class TaskServerTest extends AsyncTestCase
{
    private string $path;
    /** @var list<int> */
    private array $children = [];
    private ?SocketServer $listener = null;

    protected function setUp(): void
    {
        parent::setUp();
        $this->path = \sys_get_temp_dir() . '/petrel-task-test-' . \getmypid() . '-' . \bin2hex(\random_bytes(3)) . '.sock';
    }

    protected function tearDown(): void
    {
        foreach ($this->children as $pid) {
            \posix_kill($pid, \SIGKILL);
            \pcntl_waitpid($pid, $status);
        }
        $this->listener?->close();
    }

    public function testAResultComesBackAndTheInstanceIsReused(): void
    {
        $client = $this->startWorkers(1);
        $this->async(static function () use ($client): void {
            $first = $client->run(TestTask::class, ['echo', 7]);
            self::assertSame(7, $first['arg']);
            self::assertNotSame(\getmypid(), $first['pid']);
            self::assertSame(2, $client->run(TestTask::class, ['action' => 'echo'])['calls']);
            self::assertSame(3, $client->run('strlen', ['abc']));
            self::assertSame(0, $client->pending());
        });
    }

    public function testAnExceptionOfTheTaskIsRethrownWithItsClassMessageCodeAndTrace(): void
    {
        $client = $this->startWorkers(1);
        $this->async(static function () use ($client): void {
            try {
                $client->run(TestTask::class, ['throw']);
                self::fail('no exception');
            } catch (\DomainException $e) {
                self::assertSame('bad input on purpose', $e->getMessage());
                self::assertSame(42, $e->getCode());
                self::assertStringContainsString('TestTask->__invoke', $e->getTraceAsString());
            }
            self::assertSame(7, $client->run(TestTask::class, ['echo', 7])['arg'], 'the worker serves on');
        });
    }

    public function testTwoWorkersRunTwoBlockingTasksAtOnce(): void
    {
        $client = $this->startWorkers(2);
        $this->async(static function () use ($client): void {
            $client->run('strlen', ['warm']);
            $started = \microtime(true);
            $a = go(static fn () => $client->run(TestTask::class, ['sleep', 400]));
            $b = go(static fn () => $client->run(TestTask::class, ['sleep', 400]));
            $a->join();
            $b->join();
            self::assertLessThan(0.79, \microtime(true) - $started, 'the two tasks overlapped');
        });
    }

    public function testAFullQueueIsRefusedAtOnce(): void
    {
        $client = $this->startWorkers(1, queueSize: 1);
        $this->async(static function () use ($client): void {
            $busy = go(static fn () => $client->run(TestTask::class, ['sleep', 300]));
            try {
                $client->run('strlen', ['x']);
                self::fail('a second task was queued beyond the bound');
            } catch (TaskQueueFullException $e) {
                self::assertStringContainsString('the task queue is full', $e->getMessage());
            }
            $busy->join();
            self::assertSame(1, $client->run('strlen', ['x']));
        });
    }

    public function testATaskPastItsTimeoutFailsAndItsResultIsDiscarded(): void
    {
        $client = $this->startWorkers(1);
        $this->async(static function () use ($client): void {
            try {
                $client->run(TestTask::class, ['sleep', 500], 0.1);
                self::fail('no timeout');
            } catch (TaskTimeoutException $e) {
                self::assertStringContainsString('did not finish within 0.1 s', $e->getMessage());
            }
            // The next task waits for the running one, then gets its own answer.
            self::assertSame(9, $client->run(TestTask::class, ['echo', 9])['arg']);
        });
    }

    public function testTheCallersTimeoutReachesTheWaitAndAQueuedTaskIsSkipped(): void
    {
        $client = $this->startWorkers(1);
        $this->async(static function () use ($client): void {
            $busy = go(static fn () => $client->run(TestTask::class, ['sleep', 300]));
            try {
                timeout(0.1, static fn () => $client->run(TestTask::class, ['echo', 1]));
                self::fail('no timeout');
            } catch (TimeoutException) {
                // the caller's own deadline, not a TaskTimeoutException
            }
            $busy->join();
            // The abandoned task was skipped: the instance saw only the sleep before this one.
            self::assertSame(2, $client->run(TestTask::class, ['echo', 2])['calls']);
        });
    }

    public function testAWorkerKilledByASignalFailsItsTaskClearly(): void
    {
        $client = $this->startWorkers(1);
        $this->async(static function () use ($client): void {
            try {
                $client->run(TestTask::class, ['kill']);
                self::fail('no failure');
            } catch (TaskWorkerDiedException $e) {
                self::assertMatchesRegularExpression('/^Task .*TestTask failed: task worker pid \d+ died while running it, without a word \(killed by a signal/', $e->getMessage());
            }
        });
    }

    public function testAFatalErrorOrExitInATaskIsReportedWithItsCause(): void
    {
        $client = $this->startWorkers(2);
        $this->async(static function () use ($client): void {
            try {
                $client->run(TestTask::class, ['fatal']);
                self::fail('no failure');
            } catch (TaskWorkerDiedException $e) {
                self::assertMatchesRegularExpression('/failed: task worker pid \d+ died of a fatal error while running it: Allowed memory size/', $e->getMessage());
            }
            try {
                $client->run(TestTask::class, ['exit']);
                self::fail('no failure');
            } catch (TaskWorkerDiedException $e) {
                self::assertStringContainsString('exited while running it (the task called exit() or die())', $e->getMessage());
            }
        });
    }

    public function testSigtermDuringATaskLetsItFinishThenTheWorkerExits(): void
    {
        $client = $this->startWorkers(1);
        $child = $this->children[0];
        [$result, $took] = $this->async(static function () use ($client, $child): array {
            $started = \microtime(true);
            $task = go(static fn () => $client->run(TestTask::class, ['sleep', 400]));
            sleep(0.15);
            \posix_kill($child, \SIGTERM);

            return [$task->join(), \microtime(true) - $started];
        });
        self::assertSame('slept', $result);
        self::assertGreaterThanOrEqual(0.39, $took, 'the blocking usleep(400 ms) was not cut short by the signal');
        $deadline = \microtime(true) + 5;
        while (\pcntl_waitpid($child, $status, \WNOHANG) === 0 && \microtime(true) < $deadline) {
            \usleep(10000);
        }
        self::assertTrue(\pcntl_wifexited($status) && \pcntl_wexitstatus($status) === 0, 'the worker exited normally after its task');
        $this->children = [];
    }

    /**
     * A task that never returned held its task worker for ever, long after its caller had
     * given up. Now, past its deadline plus the grace, an endless PHP loop is ended by the
     * worker's alarm (exit code 124), and a task blocked in a read that PHP retries when a
     * signal interrupts it (no PHP handler can run there) by SIGKILL $killGrace later.
     */
    public function testATaskPastItsDeadlineAndGraceEndsItsWorkerEvenInsideABlockingCall(): void
    {
        if (KillTimer::create() === null) {
            self::markTestSkipped('no kernel timer here (it needs Linux and ext-ffi)');
        }
        $client = $this->startWorkers(2, overrunGrace: 0.0, killGrace: 0.5);
        $workers = $this->children;
        $started = \microtime(true);
        $this->async(static function () use ($client): void {
            $spin = go(static fn () => $client->run(TestTask::class, ['spin'], 0.3));
            $hang = go(static fn () => $client->run(TestTask::class, ['hang'], 0.3));
            foreach ([$spin, $hang] as $task) {
                try {
                    $task->join();
                    self::fail('no timeout');
                } catch (TaskTimeoutException) {
                }
            }
        });
        $exits = [];
        while (\count($exits) < 2 && \microtime(true) - $started < 5.0) {
            $pid = \pcntl_waitpid(-1, $status, \WNOHANG);
            if ($pid > 0) {
                $exits[$pid] = [\pcntl_wifexited($status) ? \pcntl_wexitstatus($status) : null, \pcntl_wifsignaled($status) ? \pcntl_wtermsig($status) : null, \microtime(true) - $started];
            }
            \usleep(10000);
        }
        $this->children = \array_values(\array_diff($this->children, \array_keys($exits))); // tearDown() kills the rest
        self::assertCount(2, $exits, 'both task workers ended');
        // Which child took which task: the spinning one exits 124, the other is killed.
        $byCode = \array_column($exits, null, 0);
        self::assertArrayHasKey(TaskServer::EXIT_OVERRUN, $byCode, 'the endless loop ended with exit code 124: ' . \json_encode($exits));
        self::assertSame(\SIGKILL, \array_values(\array_filter($exits, static fn (array $e): bool => $e[0] === null))[0][1] ?? null, 'the blocked read ended by SIGKILL: ' . \json_encode($exits));
        self::assertLessThan(2.5, \max(\array_column($exits, 2)), 'within the alarm (whole seconds) plus the kill grace');
        self::assertEqualsCanonicalizing($workers, \array_keys($exits));
    }

    /**
     * At the limit's other side: a task that outlives its caller's deadline but ends within
     * the grace keeps its task worker, which serves the next task (only a task past the
     * deadline plus the grace ends it).
     */
    public function testATaskEndingWithinTheGraceKeepsItsWorker(): void
    {
        $client = $this->startWorkers(1, overrunGrace: 2.0, killGrace: 0.5);
        [$before, $after] = $this->async(static function () use ($client): array {
            $before = $client->run(TestTask::class, ['echo', 1])['pid'];
            try {
                $client->run(TestTask::class, ['sleep', 1200], 0.3); // 0.9 s past its deadline
                self::fail('no timeout');
            } catch (TaskTimeoutException) {
            }

            return [$before, $client->run(TestTask::class, ['echo', 2], 5.0)['pid']];
        });
        self::assertSame($before, $after, 'the same task worker served on');
        self::assertSame(0, \pcntl_waitpid(-1, $status, \WNOHANG), 'no task worker ended');
    }

    public function testRoundTripAndThroughputFigures(): void
    {
        $client = $this->startWorkers(2);
        [$roundTrip, $perSecond] = $this->async(static function () use ($client): array {
            for ($i = 0; $i < 50; $i++) {
                $client->run('strlen', ['warm']);
            }
            $n = 1000;
            $started = \hrtime(true);
            for ($i = 0; $i < $n; $i++) {
                $client->run('strlen', ['x']);
            }
            $roundTrip = (\hrtime(true) - $started) / 1e3 / $n;
            $started = \hrtime(true);
            $coroutines = [];
            for ($c = 0; $c < 8; $c++) {
                $coroutines[] = go(static function () use ($client, $n): void {
                    for ($i = 0; $i < $n / 4; $i++) {
                        $client->run('strlen', ['x']);
                    }
                });
            }
            foreach ($coroutines as $coroutine) {
                $coroutine->join();
            }

            return [$roundTrip, 2 * $n / ((\hrtime(true) - $started) / 1e9)];
        }, 30.0);
        \fwrite(\STDERR, \sprintf("\n[tasks] empty task round trip %.0f µs; %.0f tasks/s through 2 task workers (8 submitters)\n", $roundTrip, $perSecond));
        self::assertGreaterThan(0, $perSecond);
    }

    private function startWorkers(int $count, int $queueSize = 64, float $overrunGrace = TaskServer::OVERRUN_GRACE, float $killGrace = TaskServer::KILL_GRACE): TaskClient
    {
        $this->listener = $listener = SocketServer::listen("unix://{$this->path}", new \Petrel\Socket\ServerOptions(backlog: 128));
        for ($i = 0; $i < $count; $i++) {
            $pid = \pcntl_fork();
            if ($pid === 0) {
                Scheduler::reset();
                $server = new TaskServer(new SocketServer($listener->getResource()), overrunGrace: $overrunGrace, killGrace: $killGrace);
                $driver = Scheduler::get()->driver;
                $driver->unreference($driver->onSignal(\SIGTERM, $server->stop(...)));
                run(static fn () => $server->serve());
                exit(0);
            }
            $this->children[] = $pid;
        }

        return new TaskClient($this->path, $queueSize, 10.0);
    }
}
