<?php

declare(strict_types=1);

namespace Petrel\Bench\Load;

/**
 * What one load-generator run reports: throughput, latency percentiles in milliseconds
 * (both wrk --latency and ab print p50, p90 and p99), failed requests (connect, read and
 * write errors, timeouts) and answers outside 2xx/3xx. A generator that measures something
 * else as well (a WebSocket fan-out's slowest delivery…) adds it under $extra, by name.
 */
final class LoadResult
{
    public function __construct(
        public readonly float $requestsPerSecond,
        public readonly int $requests,
        public readonly float $p50Ms,
        public readonly float $p90Ms,
        public readonly float $p99Ms,
        public readonly int $errors,
        public readonly int $non2xx,
        /** @var array<string, float> */
        public readonly array $extra = [],
    ) {
    }
}
