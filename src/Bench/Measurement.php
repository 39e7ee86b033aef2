<?php

declare(strict_types=1);

namespace Petrel\Bench;

use Petrel\Bench\Load\LoadResult;

/** One measured run of one point: the load generator's figures plus the server's CPU and memory. */
final class Measurement
{
    public function __construct(
        public readonly LoadResult $load,
        public readonly float $cpuPercent,
        public readonly int $peakRssBytes,
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
        ];
    }
}
