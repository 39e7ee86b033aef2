<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Socket\SocketException;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\PetrelProcess;
use Petrel\Tests\Support\RawHttp;

use function Petrel\go;
use function Petrel\sleep;

final class ProcessModelTest extends AsyncTestCase
{
    private const APP = __DIR__ . '/fixtures/app.php';

    public function testReloadUnderContinuousLoadLosesNoRequest(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=2']))->start();
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 2, 5, 'two ready workers');
        $before = $server->workerPids();
        $stats = $this->async(static function () use ($server, $before): array {
            $stats = ['ok' => 0, 'failed' => 0, 'errors' => []];
            $running = true;
            $clients = [];
            for ($c = 0; $c < 20; $c++) {
                $clients[] = go(static function () use ($server, &$running, &$stats): void {
                    $socket = null;
                    while ($running) {
                        try {
                            $socket ??= RawHttp::connect($server->address);
                            $socket->write("GET /sleep?ms=5 HTTP/1.1\r\nHost: a\r\n\r\n");
                            $response = RawHttp::readResponse($socket);
                            if ($response?->status === 200) {
                                $stats['ok']++;
                            } else {
                                $stats['failed']++;
                                $stats['errors'][] = 'status ' . ($response->status ?? 'none');
                            }
                            if ($response?->header('connection') === 'close') {
                                $socket->close();
                                $socket = null;
                            }
                        } catch (SocketException $e) {
                            $stats['failed']++;
                            $stats['errors'][] = $e->getMessage();
                            $socket?->close();
                            $socket = null;
                        }
                    }
                    $socket?->close();
                });
            }
            sleep(0.5);
            $server->signal(\SIGUSR1);
            $deadline = \microtime(true) + 15;
            while (\microtime(true) < $deadline) {
                $now = $server->workerPids();
                if (\count($now) === 2 && \array_intersect($now, $before) === []) {
                    break;
                }
                sleep(0.1);
            }
            sleep(1.5); // keep the load on while the old workers drain and exit
            $running = false;
            foreach ($clients as $client) {
                $client->join();
            }

            return $stats;
        }, 30.0);
        $after = $server->workerPids();
        self::assertCount(2, $after);
        self::assertSame([], \array_intersect($after, $before), 'all workers were replaced');
        self::assertSame(0, $stats['failed'], 'failed requests during reload: ' . \implode('; ', \array_slice($stats['errors'], 0, 5)));
        self::assertGreaterThan(200, $stats['ok']);
        self::assertSame(0, $server->stop());
    }

    public function testAWorkerKilledWithSigkillIsReplaced(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=2']))->start();
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 2, 5, 'two ready workers');
        [$victim] = $server->workerPids();
        \posix_kill($victim, \SIGKILL);
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 2 && !\in_array($victim, $server->workerPids(), true), 10, 'a replacement worker');
        self::assertStringContainsString("was killed by signal 9", $server->log());
        $this->async(static fn () => self::assertSame(200, RawHttp::get($server->address)->status));
        self::assertSame(0, $server->stop());
    }

    public function testAWorkerThatExitsIsRestarted(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=1']))->start();
        $this->async(static function () use ($server): void {
            try {
                RawHttp::get($server->address, '/exit');
            } catch (\RuntimeException | SocketException) {
                // the worker died mid-request: no response, by design of this endpoint
            }
        });
        PetrelProcess::waitFor(static fn () => \str_contains($server->log(), 'exited with code 3'), 5, 'the exit to be logged');
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 1, 10, 'the restarted worker');
        $this->async(static fn () => self::assertSame(200, RawHttp::get($server->address)->status));
        self::assertSame(0, $server->stop());
    }

    public function testSigtermDrainsInFlightRequestsThenExitsZero(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=1']))->start();
        $response = $this->async(static function () use ($server): string {
            $slow = go(static fn () => RawHttp::get($server->address, '/sleep?ms=1000')->body);
            sleep(0.2);
            $server->signal(\SIGTERM);
            sleep(0.2);
            try {
                RawHttp::get($server->address);
                self::fail('a stopping server must not accept new connections');
            } catch (\Petrel\Socket\ConnectException) {
            }

            return $slow->join();
        });
        self::assertSame('slept 1000', $response, 'the in-flight request completed');
        self::assertSame(0, $server->stop());
        self::assertFileDoesNotExist($server->pidFile);
    }

    /**
     * A terminal that closes sends SIGHUP to the whole process group of a foreground server
     * (here: to the master and each worker, as the group would get it). It used to end them
     * all at once: the request in flight cut, the pid file left. Now: a graceful stop.
     */
    public function testSighupToTheProcessGroupIsAGracefulStop(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=2']))->start();
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 2, 10, 'two ready workers');
        $workers = $server->workerPids();
        $response = $this->async(static function () use ($server, $workers): string {
            $slow = go(static fn () => RawHttp::get($server->address, '/sleep?ms=1000')->body);
            sleep(0.2);
            foreach ($workers as $worker) {
                \posix_kill($worker, \SIGHUP);
            }
            $server->signal(\SIGHUP);

            return $slow->join();
        });
        self::assertSame('slept 1000', $response, "the in-flight request completed; the log:\n" . $server->log());
        self::assertSame(0, $server->stop());
        self::assertFileDoesNotExist($server->pidFile);
        self::assertStringContainsString('stopping 2 worker(s) gracefully', $server->log());
        self::assertStringNotContainsString('killed by signal', $server->log());
    }

    /**
     * A client that sent part of a head and stalled held the stop for the whole graceful
     * timeout (30 s by default): it gets the grace an idle connection gets, and the
     * server exits in about a second. The drain still waits for a request in flight.
     */
    public function testAStalledHalfHeadDoesNotHoldTheStop(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=1']))->start();
        $stalled = \stream_socket_client("tcp://{$server->address}", $errno, $error, 5.0);
        self::assertIsResource($stalled, $error);
        \fwrite($stalled, "GET / HTTP/1.1\r\nHost: x\r\n");
        \usleep(200_000); // read by the worker
        $started = \hrtime(true);
        self::assertSame(0, $server->stop(10.0));
        self::assertLessThan(5.0, (\hrtime(true) - $started) / 1e9, 'well within the 30 s graceful timeout');
        self::assertSame('', (string) \stream_get_contents($stalled), 'closed without an answer: no request came');
    }

    /**
     * The APP's every() ticks during a stop: none starts once the stop has begun, and the
     * one running finishes. They started ticks all through the drain, and the worker exited
     * in the middle of one as soon as its last request was answered.
     */
    public function testAStopStartsNoTickAndLetsTheRunningOneFinish(): void
    {
        $app = \sys_get_temp_dir() . '/petrel-timer-app-' . \getmypid() . '.php';
        $log = "{$app}.log";
        \file_put_contents($app, '<?php
            $log = ' . \var_export($log, true) . ';
            \\Petrel\\every(0.2, static function () use ($log): void {
                \\file_put_contents($log, "start " . \\microtime(true) . "\\n", \\FILE_APPEND);
                \\Petrel\\sleep(0.6);
                \\file_put_contents($log, "end\\n", \\FILE_APPEND);
            });
            return static function (\\Petrel\\Http\\Request $request): \\Petrel\\Http\\Response {
                \\Petrel\\sleep((float) $request->getQueryParam("s", "0"));
                return \\Petrel\\Http\\Response::text("ok");
            };');
        $server = (new PetrelProcess($app, ['--workers=1']))->start();
        try {
            $stoppedAt = $this->async(static function () use ($server, $log): float {
                while (\substr_count((string) @\file_get_contents($log), 'start') < 1) {
                    sleep(0.05);
                }
                $request = go(static fn () => RawHttp::get($server->address, '/?s=1.5')->status);
                sleep(0.1);
                $stoppedAt = \microtime(true);
                $server->signal(\SIGTERM);
                self::assertSame(200, $request->join());

                return $stoppedAt;
            }, 20.0);
            self::assertSame(0, $server->stop());
            $lines = \file((string) $log, \FILE_IGNORE_NEW_LINES) ?: [];
            $starts = \array_values(\array_filter($lines, static fn (string $line): bool => \str_starts_with($line, 'start ')));
            self::assertLessThan($stoppedAt, (float) \substr((string) \end($starts), 6), "a tick started during the stop:\n" . \implode("\n", $lines));
            self::assertSame(\count($starts), \count($lines) - \count($starts), "every tick ran to its end:\n" . \implode("\n", $lines));
        } finally {
            @\unlink($app);
            @\unlink($log);
        }
    }

    public function testMaxRequestsRecyclesWorkers(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=1', '--max-requests=5']))->start();
        $pids = $this->async(static function () use ($server): array {
            // A worker past its limit keeps serving until its successor is ready, so a
            // quick burst may all land on it: keep asking (each on a fresh connection)
            // until three workers have answered. Every request must succeed.
            $pids = [];
            $deadline = \microtime(true) + 20;
            while (\count(\array_unique($pids)) < 3 && \microtime(true) < $deadline) {
                try {
                    $pids[] = RawHttp::get($server->address, '/pid')->body;
                } catch (\Petrel\Socket\ConnectException $e) {
                    self::fail('connection refused while recycling: ' . $e->getMessage());
                }
                \Petrel\sleep(0.01);
            }

            return $pids;
        }, 30.0);
        self::assertGreaterThanOrEqual(3, \count(\array_unique($pids)), 'a fresh worker after every 5 requests or so: ' . \implode(',', $pids));
        $counts = \array_count_values($pids);
        self::assertLessThanOrEqual(30, \max($counts), 'no worker kept serving long past its limit of 5: ' . \json_encode($counts));
        self::assertStringNotContainsString('restarting in', $server->log(), 'planned recycling is not a crash');
        self::assertSame(0, $server->stop());
    }

    public function testStatusCommandShowsWorkers(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=2']))->start();
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 2, 5, 'two ready workers');
        $this->async(static function () use ($server): void {
            for ($i = 0; $i < 10; $i++) {
                RawHttp::get($server->address);
            }
        });
        PetrelProcess::waitFor(static function () use ($server): bool {
            $total = 0;
            foreach ($server->status()['workers'] ?? [] as $worker) {
                $total += (int) ($worker['requests'] ?? 0);
            }

            return $total >= 10;
        }, 5, 'the request counts to reach the status');
        $output = PetrelProcess::runCli(['status', "--pid-file={$server->pidFile}"], $code);
        self::assertSame(0, $code, $output);
        self::assertMatchesRegularExpression('/Petrel master pid \d+, up \d+s, 2 worker\(s\)/', $output);
        self::assertMatchesRegularExpression('/^WORKER\s+PID\s+STATE\s+REQUESTS\s+CONNS\s+COROUTINES\s+MEMORY\s+UPTIME$/m', $output);
        self::assertSame(2, \preg_match_all('/^\d+\s+\d+\s+ready\s+\d+\s+\d+\s+\d+\s+[\d.]+ MB\s+\d+s$/m', $output));
        $output = PetrelProcess::runCli(['stop', "--pid-file={$server->pidFile}"], $code);
        self::assertSame(0, $code, $output);
        self::assertStringContainsString('Stopped.', $output);
        self::assertFalse($server->isRunning());
    }

    public function testWorkersExitWhenTheMasterDies(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=2']))->start();
        PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 2, 5, 'two ready workers');
        $workers = $server->workerPids();
        \posix_kill($server->masterPid(), \SIGKILL);
        PetrelProcess::waitFor(static function () use ($workers): bool {
            foreach ($workers as $pid) {
                if (\Petrel\Process\PidFile::isAlive($pid)) {
                    return false;
                }
            }

            return true;
        }, 10, 'the orphaned workers to stop');
        $server->stop();
        self::assertTrue(true);
    }

    public function testReloadWithABrokenAppKeepsTheRunningWorkers(): void
    {
        $app = \sys_get_temp_dir() . '/petrel-reload-app-' . \getmypid() . '.php';
        \copy(self::APP, $app);
        $server = (new PetrelProcess($app, ['--workers=1']))->start();
        try {
            PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 1, 5, 'a ready worker');
            $before = $server->workerPids();
            \file_put_contents($app, "<?php\nreturn 'not a handler';\n");
            $server->signal(\SIGUSR1);
            PetrelProcess::waitFor(static fn () => \str_contains($server->log(), 'reload failed, keeping the running workers'), 10, 'the reload failure');
            self::assertSame($before, $server->workerPids());
            $this->async(static fn () => self::assertSame(200, RawHttp::get($server->address)->status));
        } finally {
            self::assertSame(0, $server->stop());
            @\unlink($app);
        }
    }

    /**
     * Reload runs the code on disk. opcache checks a file's timestamp against the request's
     * time, which in forked CLI workers stays the master's start: an APP cached before it
     * changed was served as it was, through any number of reloads. (Files less than 2 s old
     * are not cached at all, which is why the file here is made older.)
     */
    public function testReloadRunsTheCodeOnDiskNotTheCachedCompile(): void
    {
        $app = \sys_get_temp_dir() . '/petrel-reload-code-' . \getmypid() . '.php';
        $version = static function (string $v) use ($app): void {
            \file_put_contents($app, "<?php\nreturn static fn (\\Petrel\\Http\\Request \$r): \\Petrel\\Http\\Response => \\Petrel\\Http\\Response::text('{$v}');\n");
        };
        $version('v1');
        \touch($app, \time() - 60);
        $server = (new PetrelProcess($app, ['--workers=1']))->start();
        try {
            PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 1, 5, 'a ready worker');
            $this->async(static fn () => self::assertSame('v1', RawHttp::get($server->address)->body));
            $before = $server->workerPids();
            $version('v2');
            \touch($app, \time() - 30);
            $server->signal(\SIGUSR1);
            PetrelProcess::waitFor(static fn () => \count($server->workerPids()) === 1 && $server->workerPids() !== $before, 10, 'a new worker');
            $this->async(static fn () => self::assertSame('v2', RawHttp::get($server->address)->body));
        } finally {
            self::assertSame(0, $server->stop());
            @\unlink($app);
        }
    }

    public function testReloadReplacesTaskWorkersToo(): void
    {
        $server = (new PetrelProcess(\dirname(__DIR__, 2) . '/examples/tasks.php', ['--workers=1', '--task-workers=1']))->start();
        $taskPids = static fn (): array => \array_values(\array_map(
            static fn (array $w): int => (int) $w['pid'],
            \array_filter($server->status()['workers'] ?? [], static fn (mixed $w): bool => \is_array($w) && ($w['kind'] ?? '') === 'task' && ($w['state'] ?? '') === 'ready'),
        ));
        PetrelProcess::waitFor(static fn () => \count($taskPids()) === 1, 10, 'a ready task worker');
        $before = $taskPids();
        $server->signal(\SIGUSR1);
        PetrelProcess::waitFor(static fn () => \count($taskPids()) === 1 && $taskPids() !== $before, 15, 'a new task worker');
        $this->async(static fn () => self::assertSame("blocked 10 ms in a task worker\n", RawHttp::get($server->address, '/block?ms=10')->body));
        self::assertSame(0, $server->stop());
    }
}
