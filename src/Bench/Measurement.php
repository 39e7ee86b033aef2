<?php

declare(strict_types=1);

namespace Petrel\Bench;

use Petrel\Bench\Load\LoadResult;

/**
 * One measured run of one point: the load generator's figures (and its extra ones) plus the
 * server's CPU, its RSS when the run started and its peak RSS during the run, and the CPU
 * the load generator used (near 100 % per thread: it may be what limits the figures).
 */
final class Measurement
{
    public function __construct(
        public readonly LoadResult $load,
        public readonly float $cpuPercent,
        public readonly int $peakRssBytes,
        public readonly int $startRssBytes = 0,
        public readonly float $loadCpuPercent = 0.0,
    ) {
    }

    /** @return array<string, int|float> the figures as results.json keeps them */
    public function toArray(): array
    {
        return [
            'rps' => \round($this->load->requestsPerSecond, 1),
            'requests' => $this->load->requests,
            'p50_ms' => \round($this->load->p50Ms, 3),
            'p90_ms' => \round($this->load->p90Ms, 3),
            'p99_ms' => \round($this->load->p99Ms, 3),
            'errors' => $this->load->errors,
            'non2xx' => $this->load->non2xx,
            'cpu_percent' => \round($this->cpuPercent, 1),
            'peak_rss_mb' => \round($this->peakRssBytes / 1048576, 1),
            'start_rss_mb' => \round($this->startRssBytes / 1048576, 1),
            'load_cpu_percent' => \round($this->loadCpuPercent, 1),
        ] + \array_map(static fn (float $value): float => \round($value, 3), $this->load->extra);
    }
}
