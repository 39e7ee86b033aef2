<?php

declare(strict_types=1);

namespace Petrel\Observability;

/**
 * The request counters of one worker, kept by Http\Server on the request path: requests by
 * method and status class, requests in flight, and a latency histogram with fixed buckets.
 * Plain integer arrays made once: counting a request allocates nothing (a method outside
 * METHODS counts as "OTHER", so a client cannot grow the arrays).
 *
 * snapshot() is what a worker sends to its master every second; PrometheusText sums the
 * workers' snapshots into /metrics.
 */
final class RequestMetrics
{
    /** Upper bounds of the latency buckets in seconds (Prometheus' defaults); +Inf is implied. */
    public const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];
    /** The same bounds in nanoseconds (hrtime), for the hot path. */
    private const BOUNDS_NS = [1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000, 50_000_000, 100_000_000, 250_000_000, 500_000_000, 1_000_000_000, 2_500_000_000, 5_000_000_000, 10_000_000_000];
    public const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'OTHER'];

    /** Requests being handled: Http\Server adds one when it calls the handler, record() takes it off. */
    public int $inFlight = 0;
    /** @var array<string, array<int, int>> method => [status class 1..5 => requests] */
    private array $requests = [];
    /** @var array<int, int> requests per bucket (not cumulative); the last one is +Inf */
    private array $buckets;
    private int $latencyNs = 0;
    /** Requests refused before any handler saw them, since start (refused()). */
    private int $refusedTotal = 0;

    public function __construct()
    {
        foreach (self::METHODS as $method) {
            $this->requests[$method] = [1 => 0, 2 => 0, 3 => 0, 4 => 0, 5 => 0];
        }
        $this->buckets = \array_fill(0, \count(self::BUCKETS) + 1, 0);
    }

    /**
     * A request refused before any handler saw it (a bad head, the connection cap): counted
     * by status class under OTHER — its method unknown or not to be trusted — and not timed.
     */
    public function refused(int $status): void
    {
        ++$this->requests['OTHER'][$status >= 500 ? 5 : 4];
        ++$this->refusedTotal;
    }

    /**
     * A request whose handler never returned: the worker died under it (a fatal error,
     * exit()) and answered it $status as it ended (Console\Internal\FatalErrorResponder).
     * Counted by class and one less in flight, not timed (its start is not kept).
     */
    public function abandoned(string $method, int $status): void
    {
        --$this->inFlight;
        ++$this->requests[isset($this->requests[$method]) ? $method : 'OTHER'][$status >= 500 ? 5 : 4];
    }

    /**
     * How many requests refused() counted: what a worker adds to the requests its server
     * answered (Http\Server::stats(), which max-requests counts) for the status's
     * "requests", so that `petrel status` shows in REQUESTS what its 4XX and 5XX count.
     */
    public function refusedTotal(): int
    {
        return $this->refusedTotal;
    }

    /**
     * Counts a request that took $nanoseconds (hrtime) and was answered $status, and one
     * request less in flight. Hot path: comparisons and array increments, most requests
     * leaving at the first bucket.
     */
    public function record(string $method, int $status, int $nanoseconds): void
    {
        --$this->inFlight;
        $class = $status >= 500 ? 5 : ($status >= 400 ? 4 : ($status >= 300 ? 3 : ($status >= 200 ? 2 : 1)));
        if (isset($this->requests[$method])) {
            ++$this->requests[$method][$class];
        } else {
            ++$this->requests['OTHER'][$class];
        }
        $this->latencyNs += $nanoseconds;
        if ($nanoseconds <= 1_000_000) {
            ++$this->buckets[0];

            return;
        }
        foreach (self::BOUNDS_NS as $i => $bound) {
            if ($nanoseconds <= $bound) {
                ++$this->buckets[$i];

                return;
            }
        }
        ++$this->buckets[\count(self::BOUNDS_NS)];
    }

    /**
     * @return array{requests: array<string, array<int, int>>, in_flight: int, buckets: array<int, int>, latency_sum: float}
     *         requests without the all-zero methods
     */
    public function snapshot(): array
    {
        return [
            'requests' => \array_filter($this->requests, static fn (array $classes): bool => \array_sum($classes) > 0),
            'in_flight' => $this->inFlight,
            'buckets' => $this->buckets,
            'latency_sum' => $this->latencyNs / 1e9,
        ];
    }

    /**
     * The latency under which $quantile (0.5, 0.99) of the requests fell, estimated from the
     * buckets as Prometheus' histogram_quantile() does (linear within a bucket); null when
     * nothing was counted.
     *
     * @param array<int, int> $buckets as in snapshot()
     */
    public static function quantile(array $buckets, float $quantile): ?float
    {
        $total = \array_sum($buckets);
        if ($total === 0) {
            return null;
        }
        $rank = $quantile * $total;
        $seen = 0;
        foreach ($buckets as $i => $count) {
            if ($seen + $count >= $rank && $count > 0) {
                $lower = self::BUCKETS[$i - 1] ?? 0.0;
                if (!isset(self::BUCKETS[$i])) {
                    return $lower; // in +Inf: the highest finite bound, as Prometheus answers
                }

                return $lower + (self::BUCKETS[$i] - $lower) * (($rank - $seen) / $count);
            }
            $seen += $count;
        }

        return self::BUCKETS[\count(self::BUCKETS) - 1];
    }
}
