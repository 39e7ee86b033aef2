<?php

declare(strict_types=1);

namespace Petrel\Bench;

/**
 * The runs of one point, or why it has none ($error: the server did not start, the tool
 * is missing, the answer was wrong).
 */
final class PointResult
{
    /** How $error starts when the point could not run on this machine (a missing tool). */
    public const SKIPPED = 'skipped: ';

    /** @var list<array<string, int|float>> */
    public readonly array $runs;
    /** @var array{median: array<string, float>, min: array<string, float>, max: array<string, float>} */
    public readonly array $summary;

    /** @param list<array<string, int|float>> $runs Measurement::toArray() of each run */
    public function __construct(
        public readonly Point $point,
        array $runs,
        public readonly ?string $error = null,
    ) {
        $this->runs = $runs;
        $this->summary = Stats::summarize($runs);
    }

    public function measured(): bool
    {
        return $this->runs !== [];
    }

    public function skipped(): bool
    {
        return $this->error !== null && \str_starts_with($this->error, self::SKIPPED);
    }

    public function median(string $metric): float
    {
        return $this->summary['median'][$metric] ?? 0.0;
    }

    public function min(string $metric): float
    {
        return $this->summary['min'][$metric] ?? 0.0;
    }

    public function max(string $metric): float
    {
        return $this->summary['max'][$metric] ?? 0.0;
    }

    /** @return array<string, mixed> */
    public function toArray(): array
    {
        return [
            'server' => $this->point->server,
            'series' => $this->point->series,
            'x' => $this->point->x,
            'path' => $this->point->path,
            'connections' => $this->point->connections,
            'params' => $this->point->params,
            'error' => $this->error,
            'runs' => $this->runs,
        ] + $this->summary;
    }

    /** @param array<string, mixed> $data */
    public static function fromArray(array $data): self
    {
        /** @var array<string, int|string> $params */
        $params = \is_array($data['params'] ?? null) ? $data['params'] : [];
        $connections = $data['connections'] ?? 0;
        $point = new Point(
            self::string($data, 'server'),
            self::string($data, 'series'),
            self::string($data, 'x'),
            self::string($data, 'path'),
            \is_numeric($connections) ? (int) $connections : 0,
            '',
            $params,
        );
        $runs = \is_array($data['runs'] ?? null) ? \array_values($data['runs']) : [];
        $error = $data['error'] ?? null;

        /** @var list<array<string, int|float>> $runs */
        return new self($point, $runs, \is_string($error) ? $error : null);
    }

    /** @param array<string, mixed> $data */
    private static function string(array $data, string $key): string
    {
        $value = $data[$key] ?? '';

        return \is_scalar($value) ? (string) $value : '';
    }
}
