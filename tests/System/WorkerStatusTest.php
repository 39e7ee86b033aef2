<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Tests\Support\PetrelProcess;
use Petrel\Tests\Unit\Observability\PrometheusParser;
use PHPUnit\Framework\TestCase;

/**
 * What a worker reports (its status, /metrics) and logs stays whole and consistent: when
 * its handler calls exit(), for the requests refused before any handler, through bin/petrel.
 */
final class WorkerStatusTest extends TestCase
{
    private const EXIT_APP = __DIR__ . '/fixtures/exit-app.php';
    private const APP = __DIR__ . '/fixtures/observability-app.php';
    /** Malformed heads and the status each is refused with. */
    private const REFUSED = ["GET / HTTP/1.1\r\nHost x\r\n\r\n" => 400, "GET / HTTP/3.0\r\nHost: x\r\n\r\n" => 505];

    /**
     * exit() in a handler ended the worker without its last status report: the requests it
     * answered since the report before (up to a second's) were missing from /metrics for
     * good (0 of 5 here). Only the normal exit path sent a last report.
     */
    public function testRequestsAnsweredBeforeAnExitInAHandlerAllCount(): void
    {
        $metrics = '127.0.0.1:' . PetrelProcess::freePort();
        $server = (new PetrelProcess(self::EXIT_APP, ['--workers=1', "--metrics={$metrics}"]))->start();
        try {
            // Pipelined on one connection: all six are served within a few milliseconds,
            // well inside one of the worker's once-a-second reports.
            $requests = '';
            for ($i = 0; $i < 5; $i++) {
                $requests .= "GET /?i={$i} HTTP/1.1\r\nHost: x\r\n\r\n";
            }
            $answers = self::exchange($server->address, $requests . "GET /exit HTTP/1.1\r\nHost: x\r\n\r\n");
            self::assertSame(5, \substr_count($answers, "HTTP/1.1 200 OK\r\n"), $answers);
            $parsed = null;
            PetrelProcess::waitFor(static function () use ($metrics, &$parsed): bool {
                $parsed = PrometheusParser::parse(self::get("http://{$metrics}/metrics"));

                return self::sample($parsed, 'petrel_worker_restarts_total', ['reason' => 'crash']) >= 1.0;
            }, 10, 'the worker that exited to be restarted');
            \assert(\is_array($parsed));
            self::assertSame(5.0, self::sample($parsed, 'petrel_http_requests_total', ['method' => 'GET', 'status' => '2xx']));
            self::assertSame(5.0, self::sample($parsed, 'petrel_http_request_duration_seconds_count', []));
        } finally {
            $server->stop();
        }
    }

    /**
     * `petrel status` showed REQUESTS 1 beside 4XX 1 and 5XX 1: REQUESTS left out the
     * requests refused before any handler (a malformed head's 400, a 505, the cap's 503)
     * while the status columns counted them. An answered request is a request: REQUESTS is
     * now the sum of the 1XX–5XX columns.
     */
    public function testStatusCountsRefusedRequestsInRequestsAsInItsStatusColumns(): void
    {
        $server = (new PetrelProcess(self::APP, ['--workers=1']))->start();
        try {
            self::assertStringContainsString("200 OK\r\n", self::exchange($server->address, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
            foreach (self::REFUSED as $bad => $status) {
                self::assertStringStartsWith("HTTP/1.1 {$status} ", self::exchange($server->address, $bad));
            }
            PetrelProcess::waitFor(static function () use ($server): bool {
                $worker = $server->status()['workers'][0] ?? [];

                return \is_array($worker) && ($worker['requests'] ?? null) === 3;
            }, 10, 'the three answered requests in the status');

            $status = PetrelProcess::runCli(['status', "--pid-file={$server->pidFile}"], $code);
            self::assertSame(0, $code, $status);
            self::assertMatchesRegularExpression('/^1\s+\d+\s+ready\s+3\s/m', $status, 'REQUESTS');
            // WORKER IN-FLIGHT 2XX 3XX 4XX 5XX: the metrics table's row of worker 1.
            self::assertMatchesRegularExpression('/^1\s+0\s+1\s+0\s+1\s+1\s/m', $status, '2XX, 3XX, 4XX, 5XX');
        } finally {
            $server->stop();
        }
    }

    /**
     * The access log's byte count (`%b`, nginx's $body_bytes_sent) was the whole response,
     * head included, for a refused request, and the body's for an answered one; both logs
     * now give the body's, as the response's Content-Length says.
     */
    public function testARefusedRequestIsLoggedWithItsBodysBytesAsAnAnsweredOneIs(): void
    {
        foreach (['combined', 'json'] as $format) {
            $accessLog = \sys_get_temp_dir() . '/petrel-status-test-' . \getmypid() . "-{$format}.log";
            @\unlink($accessLog);
            $server = (new PetrelProcess(self::APP, ['--workers=1', "--access-log={$accessLog}", "--access-log-format={$format}"]))->start();
            try {
                $lengths = [];
                foreach (self::REFUSED as $bad => $status) {
                    $answer = self::exchange($server->address, $bad);
                    self::assertStringStartsWith("HTTP/1.1 {$status} ", $answer);
                    self::assertSame(1, \preg_match('/\r\nContent-Length: (\d+)\r\n/i', $answer, $length), $answer);
                    $lengths[] = (int) $length[1];
                }
                PetrelProcess::waitFor(static fn (): bool => \count(\file($accessLog) ?: []) === 2, 10, 'two lines in the access log');
                $lines = \file($accessLog, \FILE_IGNORE_NEW_LINES) ?: [];
                foreach (\array_values(self::REFUSED) as $i => $status) {
                    $bytes = $format === 'json'
                        ? ((array) \json_decode($lines[$i], true))['bytes'] ?? null
                        : (\preg_match('/"-" (\d{3}) (\d+) "-" "-"$/', $lines[$i], $field) === 1 ? (int) $field[2] : null);
                    self::assertSame($lengths[$i], $bytes, "{$format}: {$lines[$i]}");
                }
            } finally {
                $server->stop();
                @\unlink($accessLog);
            }
        }
    }

    /** Writes $bytes on a new connection and reads until the server closes it. */
    private static function exchange(string $address, string $bytes): string
    {
        $client = \stream_socket_client("tcp://{$address}", $errno, $error, 5);
        self::assertIsResource($client, $error);
        \stream_set_timeout($client, 5);
        \fwrite($client, $bytes);
        $answer = (string) \stream_get_contents($client);
        \fclose($client);

        return $answer;
    }

    private static function get(string $url): string
    {
        $body = @\file_get_contents($url, false, \stream_context_create(['http' => ['timeout' => 10, 'ignore_errors' => true]]));
        self::assertIsString($body, "GET {$url}");

        return $body;
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
