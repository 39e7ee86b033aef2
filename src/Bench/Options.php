<?php

declare(strict_types=1);

namespace Petrel\Bench;

/**
 * How a `petrel bench` run measures: which scenarios, seconds per run, runs per point
 * (the report shows their median and min–max), warm-up seconds before them, the load
 * generator, and the worker count for the scenarios that do not vary it.
 */
final class Options
{
    public const SCENARIOS = ['hello', 'queries', 'latency', 'blog', 'symfony', 'websocket'];
    /** Seconds per run, runs per point, warm-up seconds: measuring, and --quick (checking that all works). */
    public const DEFAULTS = ['duration' => 5, 'repeat' => 3, 'warmup' => 2];
    public const QUICK = ['duration' => 1, 'repeat' => 1, 'warmup' => 1];
    /** Seconds a run takes beyond its duration (starting the load generator, sampling), for the estimate. */
    public const RUN_OVERHEAD = 0.3;

    /** @param list<string> $scenarios */
    public function __construct(
        public readonly array $scenarios = self::SCENARIOS,
        public readonly int $duration = 5,
        public readonly int $repeat = 3,
        public readonly int $warmup = 2,
        public readonly string $load = 'wrk',
        public readonly int $workers = 2,
        public readonly bool $quick = false,
        public readonly float $timeout = 10.0,
    ) {
    }

    /** Seconds one point takes, for the time-left estimate. */
    public function secondsPerPoint(): float
    {
        return $this->warmup + $this->repeat * ($this->duration + self::RUN_OVERHEAD);
    }

    /** @return array<string, int|float|string|bool> */
    public function toArray(): array
    {
        return [
            'scenarios' => \implode(',', $this->scenarios),
            'duration_s' => $this->duration,
            'repeat' => $this->repeat,
            'warmup_s' => $this->warmup,
            'load' => $this->load,
            'workers' => $this->workers,
            'quick' => $this->quick,
            'timeout_s' => $this->timeout,
        ];
    }
}
