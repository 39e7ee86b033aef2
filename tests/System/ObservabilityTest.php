<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Tests\Support\PetrelProcess;
use Petrel\Tests\Unit\Observability\PrometheusParser;
use PHPUnit\Framework\TestCase;

/** --metrics, `petrel status`, the blocking detector, --watch and --leak-check, through bin/petrel. */
final class ObservabilityTest extends TestCase
{
    private const APP = __DIR__ . '/fixtures/observability-app.php';

    public function testMetricsAreSummedOverTheWorkersAndParseAsPrometheus(): void
    {
        $metrics = '127.0.0.1:' . PetrelProcess::freePort();
        $server = (new PetrelProcess(self::APP, ['--workers=2', "--metrics={$metrics}"]))->start();
        for ($i = 0; $i < 20; $i++) {
            self::assertSame("ok\n", self::get("http://{$server->address}/?i={$i}"));
        }
        self::get("http://{$server->address}/missing");
        $parsed = null;
        // Workers report every second: wait until all 21 requests are in.
        PetrelProcess::waitFor(static function () use ($metrics, &$parsed): bool {
            $parsed = PrometheusParser::parse(self::get("http://{$metrics}/metrics"));

            return self::sample($parsed, 'petrel_http_request_duration_seconds_count', []) === 21.0;
        }, 10, 'the 21 requests in /metrics');
        \assert(\is_array($parsed));
        self::assertSame(20.0, self::sample($parsed, 'petrel_http_requests_total', ['method' => 'GET', 'status' => '2xx']));
        self::assertSame(1.0, self::sample($parsed, 'petrel_http_requests_total', ['method' => 'GET', 'status' => '4xx']));
        self::assertSame('histogram', $parsed['types']['petrel_http_request_duration_seconds']);
        self::assertSame(2, \count(\array_filter($parsed['samples'], static fn (array $s): bool => $s['name'] === 'petrel_worker_memory_bytes')));
        self::assertSame(0.0, self::sample($parsed, 'petrel_worker_restarts_total', ['reason' => 'crash']));
        self::assertNotNull(self::sample($parsed, 'petrel_http_requests_in_flight', []));
        self::assertNotNull(self::sample($parsed, 'petrel_coroutines_alive', []));
        self::assertSame('404 Not Found: GET /metrics', \trim(self::get("http://{$metrics}/nope")));

        $status = PetrelProcess::runCli(['status', "--pid-file={$server->pidFile}"], $code);
        self::assertSame(0, $code);
        self::assertMatchesRegularExpression('/^WORKER\s+IN-FLIGHT\s+2XX\s+3XX\s+4XX\s+5XX\s+P50\s+P99\s+LOOP-LAG\s+BLOCKED$/m', $status);
        self::assertStringEndsWith("Restarts: none\n", $status);
        $server->stop();
    }

    /**
     * A recycled worker's requests of its last second were lost from the totals: it sent no
     * last report, and the master kept only what it had seen of it (8 of 50 counted with
     * --max-requests=10). The worker reports as it exits; the master counts that report.
     */
    public function testARecycledWorkersRequestsAllCount(): void
    {
        $metrics = '127.0.0.1:' . PetrelProcess::freePort();
        $server = (new PetrelProcess(self::APP, ['--workers=1', '--max-requests=10', "--metrics={$metrics}"]))->start();
        for ($i = 0; $i < 50; $i++) {
            self::assertSame("ok\n", self::get("http://{$server->address}/?i={$i}"));
        }
        $parsed = null;
        PetrelProcess::waitFor(static function () use ($metrics, &$parsed): bool {
            $parsed = PrometheusParser::parse(self::get("http://{$metrics}/metrics"));

            return self::sample($parsed, 'petrel_http_requests_total', ['method' => 'GET', 'status' => '2xx']) === 50.0;
        }, 10, 'the 50 requests in /metrics');
        \assert(\is_array($parsed));
        self::assertSame(50.0, self::sample($parsed, 'petrel_http_request_duration_seconds_count', []));
        self::assertGreaterThanOrEqual(1.0, self::sample($parsed, 'petrel_worker_restarts_total', ['reason' => 'max-requests']));
        $server->stop();
    }

    /**
     * Requests refused before any handler saw them (a malformed head, an unknown version)
     * were in neither /metrics nor the access log: a flood of 400s left no trace.
     */
    public function testRefusedRequestsAreCountedAndLogged(): void
    {
        $metrics = '127.0.0.1:' . PetrelProcess::freePort();
        $accessLog = \sys_get_temp_dir() . '/petrel-refused-' . \getmypid() . '.log';
        @\unlink($accessLog);
        $server = (new PetrelProcess(self::APP, ['--workers=1', "--metrics={$metrics}", "--access-log={$accessLog}"]))->start();
        try {
            self::assertSame("ok\n", self::get("http://{$server->address}/"));
            foreach (["GET / HTTP/1.1\r\nHost x\r\n\r\n" => '400', "GET / HTTP/3.0\r\nHost: x\r\n\r\n" => '505'] as $bad => $status) {
                $client = \stream_socket_client("tcp://{$server->address}", $errno, $error, 5);
                self::assertIsResource($client, $error);
                \fwrite($client, $bad);
                \stream_set_timeout($client, 5);
                self::assertStringStartsWith("HTTP/1.1 {$status} ", (string) \fgets($client));
                \fclose($client);
            }
            $parsed = null;
            PetrelProcess::waitFor(static function () use ($metrics, &$parsed): bool {
                $parsed = PrometheusParser::parse(self::get("http://{$metrics}/metrics"));

                return self::sample($parsed, 'petrel_http_requests_total', ['method' => 'OTHER', 'status' => '5xx']) === 1.0;
            }, 10, 'the refused requests in /metrics');
            \assert(\is_array($parsed));
            self::assertSame(1.0, self::sample($parsed, 'petrel_http_requests_total', ['method' => 'OTHER', 'status' => '4xx']));
            self::assertSame(1.0, self::sample($parsed, 'petrel_http_requests_total', ['method' => 'GET', 'status' => '2xx']));
            $lines = \file($accessLog, \FILE_IGNORE_NEW_LINES) ?: [];
            self::assertCount(3, $lines, \implode("\n", $lines));
            self::assertMatchesRegularExpression('/^127\.0\.0\.1 - - \[[^]]+\] "-" 400 \d+ "-" "-"$/', $lines[1]);
            self::assertMatchesRegularExpression('/"-" 505 \d+ "-" "-"$/', $lines[2]);
        } finally {
            $server->stop();
            @\unlink($accessLog);
        }
    }

    public function testABlockingHandlerIsReportedOnceWithItsFileAndLine(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=1', '--block-threshold=100']))->start();
        self::assertSame("blocked\n", self::get("http://{$server->address}/block"));
        PetrelProcess::waitFor(static fn (): bool => \str_contains($server->log(), 'advice:'), 10, 'the blocking report');
        self::assertSame("blocked\n", self::get("http://{$server->address}/block?again"));
        self::assertSame("ok\n", self::get("http://{$server->address}/")); // served after the second block: its report, if any, is written

        $line = self::lineOf('BLOCKING-CALL');
        $log = $server->log();
        // The signal is handled at the statement after the call returns: the call's line or the next.
        self::assertMatchesRegularExpression('/the event loop was blocked for \d+ ms \(threshold 100 ms\) at ' . \preg_quote(self::APP, '/') . ':(' . $line . '|' . ($line + 1) . ')/', $log);
        self::assertStringContainsString('usleep(400000); // BLOCKING-CALL', $log, 'the source line is shown');
        self::assertSame(1, \substr_count($log, 'the event loop was blocked'), 'once per call site');
        // The stack is the APP's frames and the one of Petrel's that called them: bin/petrel
        // at its bottom counted as the APP's, and the whole server was listed, 30 frames deep.
        self::assertMatchesRegularExpression('/  stack:\n    #0 ' . \preg_quote(self::APP, '/') . ':\d+ [^\n]*\n    #1 [^\n]*\n  advice:/', $log, 'the APP\'s frame and its caller only');
        $server->stop();
    }

    public function testTheMasterWatchesEveryWorkerWithoutAProcessOfItsOwn(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=2', '--block-threshold=100']))->start();
        PetrelProcess::waitFor(static fn (): bool => \count($server->workerPids()) === 2, 10, 'two ready workers');
        $workers = $server->workerPids();
        self::assertSame([], \array_merge(...\array_map(self::childrenOf(...), $workers)), 'no watchdog process under a worker');
        $children = self::childrenOf($server->masterPid());
        \sort($children);
        self::assertSame($workers, $children, 'the master forks the workers only');
        self::assertSame("blocked\n", self::get("http://{$server->address}/block"));
        PetrelProcess::waitFor(static fn (): bool => \str_contains($server->log(), 'advice:'), 10, 'the blocking report');
        $server->stop();
    }

    public function testAReplacedWorkerIsWatchedToo(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=1', '--max-requests=2', '--block-threshold=100']))->start();
        // Each recycle frees the old worker's slot when the master reaps it; the new one gets a slot.
        PetrelProcess::waitFor(static function () use ($server): bool {
            self::get("http://{$server->address}/");

            return \substr_count($server->log(), 'replaced by pid') >= 3;
        }, 20, 'three recycles');
        self::assertSame("blocked\n", self::get("http://{$server->address}/block"));
        PetrelProcess::waitFor(static fn (): bool => \str_contains($server->log(), 'advice:'), 10, 'the blocking report');
        self::assertStringContainsString('usleep(400000); // BLOCKING-CALL', $server->log());
        $server->stop();
    }

    public function testTheBlockingDetectorCanBeTurnedOff(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=1', '--block-threshold=0']))->start();
        self::assertSame("blocked\n", self::get("http://{$server->address}/block"));
        self::assertSame("ok\n", self::get("http://{$server->address}/"));
        $server->stop();
        self::assertStringNotContainsString('the event loop was blocked', $server->log());
    }

    public function testAWatchedEditIsPickedUpWithinASecondAndABrokenOneKeepsTheOldWorkers(): void
    {
        $dir = \sys_get_temp_dir() . '/petrel-watch-' . \bin2hex(\random_bytes(4));
        \mkdir($dir);
        $app = "{$dir}/app.php";
        $write = static fn (string $answer) => \file_put_contents($app, "<?php\nreturn static fn () => \\Petrel\\Http\\Response::text('{$answer}');\n");
        $write('v1');
        try {
            $server = (new PetrelProcess($app, ['--workers=1', '--watch']))->start();
            self::assertSame('v1', self::get("http://{$server->address}/"));

            $write('v2');
            $edited = \microtime(true);
            PetrelProcess::waitFor(static fn (): bool => \str_contains($server->log(), 'app.php changed: reloading the workers'), 5, 'the change seen');
            self::assertLessThan(1.0, \microtime(true) - $edited, 'the edit is seen within 1 s');
            PetrelProcess::waitFor(static fn (): bool => self::get("http://{$server->address}/") === 'v2', 10, 'the new code served');

            \file_put_contents($app, "<?php\nreturn static fn () => oops(;\n");
            PetrelProcess::waitFor(static fn (): bool => \str_contains($server->log(), 'not reloading:'), 5, 'the syntax error reported');
            self::assertMatchesRegularExpression('/not reloading: syntax error, .* in ' . \preg_quote($app, '/') . ':2; the running workers keep the previous code/', $server->log());
            self::assertSame('v2', self::get("http://{$server->address}/"));
            $server->stop();
        } finally {
            @\unlink($app);
            @\rmdir($dir);
        }
    }

    public function testALeakingStaticIsReportedWithTheRequestThatGrewIt(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=1', '--leak-check']))->start();
        self::assertSame("leaked\n", self::get("http://{$server->address}/leak?a"));
        self::assertSame("leaked\n", self::get("http://{$server->address}/leak?b"));
        self::assertSame("ok\n", self::get("http://{$server->address}/"));
        PetrelProcess::waitFor(static fn (): bool => \str_contains($server->log(), 'ObservabilityFixtureRepo::$cache'), 5, 'the leak report');
        $server->stop();
        $log = $server->log();
        self::assertMatchesRegularExpression('/GET \/leak\?[ab] grew ObservabilityFixtureRepo::\$cache \(static\) from \d to \d entr/', $log);
        self::assertSame(1, \substr_count($log, 'ObservabilityFixtureRepo::$cache'), 'once per site');
    }

    private static function get(string $url): string
    {
        $body = @\file_get_contents($url, false, \stream_context_create(['http' => ['timeout' => 10, 'ignore_errors' => true]]));
        self::assertIsString($body, "GET {$url}");

        return $body;
    }

    /** @return list<int> the pids whose parent is $pid (from /proc) */
    private static function childrenOf(int $pid): array
    {
        $children = [];
        foreach ((array) \glob('/proc/[0-9]*/stat') as $file) {
            $stat = (string) @\file_get_contents((string) $file);
            // pid (comm) state ppid …: comm may hold spaces and parentheses, so split after the last ')'.
            $fields = \explode(' ', \substr($stat, (int) \strrpos($stat, ')') + 2));
            if ($stat !== '' && (int) ($fields[1] ?? 0) === $pid) {
                $children[] = (int) $stat;
            }
        }

        return $children;
    }

    private static function lineOf(string $marker): int
    {
        foreach ((array) \file(self::APP) as $i => $line) {
            if (\str_contains((string) $line, $marker)) {
                return $i + 1;
            }
        }
        self::fail("{$marker} not in the fixture");
    }

    /**
     * @param array{samples: list<array{name: string, labels: array<string, string>, value: float}>} $parsed
     * @param array<string, string> $labels
     */
    private static function sample(array $parsed, string $name, array $labels): ?float
    {
        foreach ($parsed['samples'] as $sample) {
            if ($sample['name'] === $name && $sample['labels'] == $labels) {
                return $sample['value'];
            }
        }

        return null;
    }
}
