<?php

declare(strict_types=1);

namespace Petrel\Bench\Report;

use Petrel\Bench\PointResult;

/** Number formats and tables shared by the report and the scenarios' summaries. */
final class Markdown
{
    /**
     * @param list<string> $header
     * @param list<list<string>> $rows
     * @param list<string> $align 'l' or 'r' per column (default: first left, others right)
     */
    public static function table(array $header, array $rows, array $align = []): string
    {
        $escape = static fn (string $cell): string => \str_replace('|', '\|', $cell);
        $rule = [];
        foreach ($header as $i => $_) {
            $rule[] = ($align[$i] ?? ($i === 0 ? 'l' : 'r')) === 'r' ? '---:' : '---';
        }
        $lines = ['| ' . \implode(' | ', \array_map($escape, $header)) . ' |', '| ' . \implode(' | ', $rule) . ' |'];
        foreach ($rows as $row) {
            $lines[] = '| ' . \implode(' | ', \array_map($escape, $row)) . ' |';
        }

        return \implode("\n", $lines) . "\n";
    }

    /** 67312.4 → "67,312"; below 100 one decimal ("38.5"). */
    public static function rate(float $value): string
    {
        return $value < 100 ? \number_format($value, 1) : \number_format($value);
    }

    /** req/s median with the min–max of the runs when there were several. */
    public static function rateRange(PointResult $result): string
    {
        if (!$result->measured()) {
            return '—';
        }
        $median = self::rate($result->median('rps'));
        if (\count($result->runs) < 2) {
            return $median;
        }

        return "{$median} (" . self::rate($result->min('rps')) . '–' . self::rate($result->max('rps')) . ')';
    }

    /** Milliseconds: "0.42", "13.1", "2,610". */
    public static function ms(float $value): string
    {
        return match (true) {
            $value < 10 => \number_format($value, 2),
            $value < 100 => \number_format($value, 1),
            default => \number_format($value),
        };
    }

    public static function ratio(?float $ratio): string
    {
        return $ratio === null ? '—' : \number_format($ratio, $ratio < 10 ? 2 : 1) . '×';
    }

    /** One metric of a point, or "—" when it was not measured. */
    public static function metric(?PointResult $result, string $metric): string
    {
        if ($result === null || !$result->measured()) {
            return '—';
        }
        $value = $result->median($metric);

        return match ($metric) {
            'rps' => self::rate($value),
            'p50_ms', 'p90_ms', 'p99_ms' => self::ms($value),
            'cpu_percent' => \number_format($value) . ' %',
            'peak_rss_mb' => \number_format($value, $value < 100 ? 1 : 0) . ' MB',
            default => \number_format($value),
        };
    }

    /** errors + non-2xx, as "0" or "12 + 3 non-2xx". */
    public static function failures(?PointResult $result): string
    {
        if ($result === null || !$result->measured()) {
            return '—';
        }
        $errors = (int) \array_sum(\array_column($result->runs, 'errors'));
        $non2xx = (int) \array_sum(\array_column($result->runs, 'non2xx'));

        return $non2xx === 0 ? \number_format($errors) : \number_format($errors) . ' + ' . \number_format($non2xx) . ' non-2xx';
    }
}
