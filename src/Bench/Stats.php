<?php

declare(strict_types=1);

namespace Petrel\Bench;

use InvalidArgumentException;

/** The statistics a report needs: median, min and max of a few runs. */
final class Stats
{
    /** Keys of a run that label it rather than measure it: not summarised. */
    private const LABELS = ['round' => true];

    /** @param list<int|float> $values */
    public static function median(array $values): float
    {
        if ($values === []) {
            throw new InvalidArgumentException('The median of no values is undefined');
        }
        \sort($values);
        $middle = \intdiv(\count($values), 2);

        return \count($values) % 2 === 1 ? (float) $values[$middle] : ($values[$middle - 1] + $values[$middle]) / 2;
    }

    /**
     * Median, min and max of every metric over the runs (not of the labels: `round`).
     *
     * @param list<array<string, int|float>> $runs
     * @return array{median: array<string, float>, min: array<string, float>, max: array<string, float>}
     */
    public static function summarize(array $runs): array
    {
        $summary = ['median' => [], 'min' => [], 'max' => []];
        if ($runs === []) {
            return $summary;
        }
        foreach (\array_keys($runs[0]) as $metric) {
            if (isset(self::LABELS[$metric])) {
                continue;
            }
            $values = \array_column($runs, $metric);
            if ($values === []) {
                continue;
            }
            $summary['median'][$metric] = self::median($values);
            $summary['min'][$metric] = (float) \min($values);
            $summary['max'][$metric] = (float) \max($values);
        }

        return $summary;
    }

    /** a / b, or null when b is zero (a ratio to a server that answered nothing means nothing). */
    public static function ratio(float $a, float $b): ?float
    {
        return $b > 0.0 ? $a / $b : null;
    }
}
