<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Observability;

use Petrel\Observability\PrometheusText;
use Petrel\Observability\RequestMetrics;
use PHPUnit\Framework\TestCase;

final class PrometheusTextTest extends TestCase
{
    public function testTwoWorkersAreSummedIntoAValidExposition(): void
    {
        [$one, $two] = [new RequestMetrics(), new RequestMetrics()];
        $one->record('GET', 200, 400_000);        // 0.4 ms
        $one->record('GET', 404, 3_000_000);      // 3 ms
        $two->record('POST', 500, 2_000_000_000); // 2 s
        $two->record('BREW', 418, 20_000_000_000); // 20 s, a method outside the list
        $text = (new PrometheusText())->render(self::statusOf([$one, $two], ['crash' => 1, 'reload' => 2]));
        $parsed = PrometheusParser::parse($text);

        self::assertSame('counter', $parsed['types']['petrel_http_requests_total']);
        self::assertSame('histogram', $parsed['types']['petrel_http_request_duration_seconds']);
        self::assertSame(1.0, self::value($parsed, 'petrel_http_requests_total', ['method' => 'GET', 'status' => '2xx']));
        self::assertSame(1.0, self::value($parsed, 'petrel_http_requests_total', ['method' => 'OTHER', 'status' => '4xx']));
        self::assertSame(4.0, self::value($parsed, 'petrel_http_request_duration_seconds_count', []));
        self::assertSame(1.0, self::value($parsed, 'petrel_http_request_duration_seconds_bucket', ['le' => '0.001']));
        self::assertSame(3.0, self::value($parsed, 'petrel_http_request_duration_seconds_bucket', ['le' => '2.5']));
        self::assertEqualsWithDelta(22.0034, self::value($parsed, 'petrel_http_request_duration_seconds_sum', []), 1e-6);
        self::assertSame(2.0, self::value($parsed, 'petrel_worker_restarts_total', ['reason' => 'reload']));
        self::assertSame(5.0, self::value($parsed, 'petrel_http_connections_open', []));
        self::assertSame(3.0, self::value($parsed, 'petrel_pool_connections', ['pool' => 'mysql', 'state' => 'in_use']));
        self::assertSame(7.0, self::value($parsed, 'petrel_pool_acquire_timeouts_total', ['pool' => 'mysql']));
    }

    public function testCountersOfAWorkerThatIsGoneAreKept(): void
    {
        $metrics = new RequestMetrics();
        $metrics->record('GET', 200, 1000);
        $text = new PrometheusText();
        $text->observe(self::statusOf([$metrics], []));
        $parsed = PrometheusParser::parse($text->render(self::statusOf([], [])));

        self::assertSame(1.0, self::value($parsed, 'petrel_http_requests_total', ['method' => 'GET', 'status' => '2xx']));
    }

    public function testQuantilesAreReadFromTheBuckets(): void
    {
        $metrics = new RequestMetrics();
        for ($i = 0; $i < 99; $i++) {
            $metrics->record('GET', 200, 500_000);
        }
        $metrics->record('GET', 200, 300_000_000);
        $buckets = $metrics->snapshot()['buckets'];

        self::assertLessThanOrEqual(0.001, RequestMetrics::quantile($buckets, 0.5));
        self::assertGreaterThan(0.25, RequestMetrics::quantile($buckets, 0.995));
        self::assertNull(RequestMetrics::quantile((new RequestMetrics())->snapshot()['buckets'], 0.5));
    }

    /**
     * @param list<RequestMetrics> $workers
     * @param array<string, int> $restarts
     * @return array<string, mixed>
     */
    private static function statusOf(array $workers, array $restarts): array
    {
        $rows = [];
        foreach ($workers as $i => $metrics) {
            $rows[] = ['number' => $i + 1, 'pid' => 1000 + $i, 'state' => 'ready', 'kind' => 'http', 'connections' => $i === 0 ? 2 : 3, 'coroutines' => 4, 'memory' => 2097152,
                'metrics' => $metrics->snapshot() + ['loop_lag' => 0.001, 'blocked' => 0, 'pools' => ['mysql' => ['busy' => $i + 1, 'idle' => 1, 'waiting' => 0, 'timeouts' => $i === 0 ? 3 : 4]]]];
        }

        return ['master' => 999, 'uptime' => 1.0, 'updated' => \microtime(true), 'restarts' => $restarts + ['crash' => 0, 'max-requests' => 0, 'max-memory' => 0, 'reload' => 0], 'workers' => $rows];
    }

    /**
     * @param array{samples: list<array{name: string, labels: array<string, string>, value: float}>} $parsed
     * @param array<string, string> $labels
     */
    private static function value(array $parsed, string $name, array $labels): ?float
    {
        foreach ($parsed['samples'] as $sample) {
            if ($sample['name'] === $name && $sample['labels'] == $labels) {
                return $sample['value'];
            }
        }

        return null;
    }
}
