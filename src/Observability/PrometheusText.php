<?php

declare(strict_types=1);

namespace Petrel\Observability;

/**
 * Turns the master's status (Process\Internal\StatusFile::snapshot(): each worker's last
 * report) into the Prometheus text exposition format 0.0.4, summed over the workers.
 *
 * Counters stay monotonic across worker restarts: a worker sends a last report when it
 * stops, the master hands it over as it reaps the worker (retire()), and it is kept in the
 * totals — a recycled worker's requests are not lost (they were, its last second's: with
 * --max-requests=10, 8 of 50 requests were counted). A worker that dies without a word
 * (SIGKILL, a crash) keeps what it had last reported (observe()).
 */
final class PrometheusText
{
    public const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

    /** @var array<int, array<string, mixed>> pid => last metrics of a live worker */
    private array $live = [];
    /** @var array{requests: array<string, array<int, int>>, buckets: list<int>, latency_sum: float, blocked: int, timeouts: array<string, int>} */
    private array $retired;

    public function __construct()
    {
        $this->retired = ['requests' => [], 'buckets' => \array_fill(0, \count(RequestMetrics::BUCKETS) + 1, 0), 'latency_sum' => 0.0, 'blocked' => 0, 'timeouts' => []];
    }

    /**
     * Notes which workers are alive; the counters of those gone are kept.
     *
     * @param array<string, mixed> $status
     */
    public function observe(array $status): void
    {
        $seen = [];
        foreach (self::httpWorkers($status) as $worker) {
            $pid = (int) ($worker['pid'] ?? 0);
            $seen[$pid] = true;
            if (\is_array($worker['metrics'] ?? null)) {
                $this->live[$pid] = $worker['metrics'];
            }
        }
        foreach ($this->live as $pid => $metrics) {
            if (!isset($seen[$pid])) {
                $this->retired = self::add($this->retired, $metrics);
                unset($this->live[$pid]);
            }
        }
    }

    /**
     * A worker is gone: its counters (its last report, else the last seen) go to the totals.
     *
     * @param array<string, mixed> $worker its status row (pid, kind, metrics)
     */
    public function retire(array $worker): void
    {
        $pid = (int) ($worker['pid'] ?? 0);
        if (($worker['kind'] ?? 'http') !== 'http') {
            return;
        }
        $metrics = \is_array($worker['metrics'] ?? null) ? $worker['metrics'] : ($this->live[$pid] ?? null);
        if ($metrics !== null) {
            $this->retired = self::add($this->retired, $metrics);
        }
        unset($this->live[$pid]);
    }

    /** @param array<string, mixed> $status */
    public function render(array $status): string
    {
        $this->observe($status);
        $total = $this->retired;
        $workers = self::httpWorkers($status);
        foreach ($workers as $worker) {
            if (\is_array($worker['metrics'] ?? null)) {
                $total = self::add($total, $worker['metrics']);
            }
        }
        $out = [];
        $out[] = "# HELP petrel_http_requests_total HTTP requests answered, by method and status class (OTHER: another method, or a request refused before a handler saw it).\n# TYPE petrel_http_requests_total counter";
        foreach ($total['requests'] as $method => $classes) {
            foreach (\array_filter($classes) as $class => $count) {
                $out[] = \sprintf('petrel_http_requests_total{method="%s",status="%dxx"} %d', self::label($method), $class, $count);
            }
        }
        $out[] = "# HELP petrel_http_request_duration_seconds Time from the request's arrival to the handler's response.\n# TYPE petrel_http_request_duration_seconds histogram";
        $cumulative = 0;
        foreach ($total['buckets'] as $i => $count) {
            $cumulative += $count;
            $le = RequestMetrics::BUCKETS[$i] ?? null;
            $out[] = \sprintf('petrel_http_request_duration_seconds_bucket{le="%s"} %d', $le === null ? '+Inf' : self::number($le), $cumulative);
        }
        $out[] = 'petrel_http_request_duration_seconds_sum ' . self::number($total['latency_sum']);
        $out[] = "petrel_http_request_duration_seconds_count {$cumulative}";
        $out[] = self::gauge('petrel_http_requests_in_flight', 'Requests being handled now.', self::sum($workers, static fn (array $w): int => (int) ($w['metrics']['in_flight'] ?? 0)));
        $out[] = self::gauge('petrel_http_connections_open', 'Open client connections.', self::sum($workers, static fn (array $w): int => (int) ($w['connections'] ?? 0)));
        $out[] = self::gauge('petrel_coroutines_alive', 'Coroutines alive in the workers.', self::sum($workers, static fn (array $w): int => (int) ($w['coroutines'] ?? 0)));
        $out[] = "# HELP petrel_event_loop_blocked_total Times a worker's loop was blocked past --block-threshold.\n# TYPE petrel_event_loop_blocked_total counter";
        $out[] = 'petrel_event_loop_blocked_total ' . ($total['blocked']);
        $memory = ["# HELP petrel_worker_memory_bytes Memory PHP holds in each worker (memory_get_usage(true)).\n# TYPE petrel_worker_memory_bytes gauge"];
        $lag = ["# HELP petrel_event_loop_lag_seconds Longest delay of a worker's loop timer in the last second.\n# TYPE petrel_event_loop_lag_seconds gauge"];
        foreach ((array) ($status['workers'] ?? []) as $worker) {
            if (\is_array($worker) && isset($worker['memory'])) {
                // pid too: during a recycle two processes have the same number.
                $labels = \sprintf('kind="%s",worker="%d",pid="%d"', self::label((string) ($worker['kind'] ?? 'http')), (int) ($worker['number'] ?? 0), (int) ($worker['pid'] ?? 0));
                $memory[] = "petrel_worker_memory_bytes{{$labels}} " . (int) $worker['memory'];
                if (isset($worker['metrics']['loop_lag'])) {
                    $lag[] = "petrel_event_loop_lag_seconds{{$labels}} " . self::number((float) $worker['metrics']['loop_lag']);
                }
            }
        }
        \array_push($out, ...$memory, ...$lag);
        $out[] = "# HELP petrel_worker_restarts_total Workers replaced, by reason.\n# TYPE petrel_worker_restarts_total counter";
        foreach ((array) ($status['restarts'] ?? []) as $reason => $count) {
            $out[] = \sprintf('petrel_worker_restarts_total{reason="%s"} %d', self::label((string) $reason), (int) $count);
        }
        $out[] = self::gauge('petrel_workers', 'Worker processes (task workers included).', \count((array) ($status['workers'] ?? [])));
        \array_push($out, ...self::pools($workers, $this->retired['timeouts']));

        return \implode("\n", $out) . "\n";
    }

    /**
     * @param list<array<string, mixed>> $workers
     * @param array<string, int> $retiredTimeouts
     * @return list<string>
     */
    private static function pools(array $workers, array $retiredTimeouts): array
    {
        $pools = [];
        foreach ($workers as $worker) {
            foreach ((array) ($worker['metrics']['pools'] ?? []) as $name => $stats) {
                $row = $pools[(string) $name] ?? ['busy' => 0, 'idle' => 0, 'waiting' => 0, 'timeouts' => 0];
                foreach (['busy', 'idle', 'waiting', 'timeouts'] as $key) {
                    $row[$key] += (int) ($stats[$key] ?? 0);
                }
                $pools[(string) $name] = $row;
            }
        }
        if ($pools === []) {
            return [];
        }
        $out = ["# HELP petrel_pool_connections Pooled connections, by pool and state.\n# TYPE petrel_pool_connections gauge"];
        foreach ($pools as $name => $stats) {
            $out[] = \sprintf('petrel_pool_connections{pool="%s",state="in_use"} %d', self::label($name), $stats['busy']);
            $out[] = \sprintf('petrel_pool_connections{pool="%s",state="idle"} %d', self::label($name), $stats['idle']);
        }
        $out[] = "# HELP petrel_pool_waiting Coroutines waiting for a pooled connection.\n# TYPE petrel_pool_waiting gauge";
        foreach ($pools as $name => $stats) {
            $out[] = \sprintf('petrel_pool_waiting{pool="%s"} %d', self::label($name), $stats['waiting']);
        }
        $out[] = "# HELP petrel_pool_acquire_timeouts_total Checkouts that timed out.\n# TYPE petrel_pool_acquire_timeouts_total counter";
        foreach ($pools as $name => $stats) {
            $out[] = \sprintf('petrel_pool_acquire_timeouts_total{pool="%s"} %d', self::label($name), $stats['timeouts'] + ($retiredTimeouts[$name] ?? 0));
        }

        return $out;
    }

    /**
     * @param array{requests: array<string, array<int, int>>, buckets: list<int>, latency_sum: float, blocked: int, timeouts: array<string, int>} $into
     * @param array<string, mixed> $metrics a worker's
     * @return array{requests: array<string, array<int, int>>, buckets: list<int>, latency_sum: float, blocked: int, timeouts: array<string, int>}
     */
    private static function add(array $into, array $metrics): array
    {
        foreach ((array) ($metrics['requests'] ?? []) as $method => $classes) {
            foreach ((array) $classes as $class => $count) {
                $into['requests'][(string) $method][(int) $class] = ($into['requests'][(string) $method][(int) $class] ?? 0) + (int) $count;
            }
        }
        foreach ((array) ($metrics['buckets'] ?? []) as $i => $count) {
            if (isset($into['buckets'][$i])) {
                $into['buckets'][$i] += (int) $count;
            }
        }
        $into['latency_sum'] += (float) ($metrics['latency_sum'] ?? 0);
        $into['blocked'] += (int) ($metrics['blocked'] ?? 0);
        foreach ((array) ($metrics['pools'] ?? []) as $name => $stats) {
            $into['timeouts'][(string) $name] = ($into['timeouts'][(string) $name] ?? 0) + (int) ($stats['timeouts'] ?? 0);
        }

        return $into;
    }

    /**
     * @param array<string, mixed> $status
     * @return list<array<string, mixed>>
     */
    private static function httpWorkers(array $status): array
    {
        $workers = [];
        foreach ((array) ($status['workers'] ?? []) as $worker) {
            if (\is_array($worker) && ($worker['kind'] ?? 'http') === 'http') {
                $workers[] = $worker;
            }
        }

        return $workers;
    }

    /**
     * @param list<array<string, mixed>> $workers
     * @param \Closure(array<string, mixed>): int $of
     */
    private static function sum(array $workers, \Closure $of): int
    {
        return \array_sum(\array_map($of, $workers));
    }

    private static function gauge(string $name, string $help, int $value): string
    {
        return "# HELP {$name} {$help}\n# TYPE {$name} gauge\n{$name} {$value}";
    }

    private static function number(float $value): string
    {
        $text = \rtrim(\rtrim(\sprintf('%.6F', $value), '0'), '.');

        return $text === '' || $text === '-0' ? '0' : $text;
    }

    private static function label(string $value): string
    {
        return \str_replace(['\\', '"', "\n"], ['\\\\', '\\"', '\\n'], $value);
    }
}
