<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Observability;

/**
 * Parses the Prometheus text exposition format 0.0.4 as the Prometheus server does, and
 * fails (throws) where it would reject a scrape: a sample line that does not parse, a
 * sample without a TYPE for its family, a TYPE after the family's samples, a repeated
 * series, an unknown type, a histogram whose buckets are not cumulative or whose +Inf
 * bucket is not its _count.
 */
final class PrometheusParser
{
    private const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';

    /**
     * @return array{types: array<string, string>, samples: list<array{name: string, labels: array<string, string>, value: float}>}
     */
    public static function parse(string $text): array
    {
        if ($text !== '' && !\str_ends_with($text, "\n")) {
            throw new \UnexpectedValueException('the exposition must end with a newline');
        }
        $types = [];
        $samples = [];
        $series = [];
        $familiesSeen = [];
        foreach (\explode("\n", \rtrim($text, "\n")) as $number => $line) {
            $where = 'line ' . ($number + 1) . ": {$line}";
            if ($line === '') {
                continue;
            }
            if (\preg_match('/^# TYPE (' . self::NAME . ') (counter|gauge|histogram|summary|untyped)$/', $line, $m)) {
                if (isset($types[$m[1]]) || isset($familiesSeen[$m[1]])) {
                    throw new \UnexpectedValueException("TYPE repeated or after samples, {$where}");
                }
                $types[$m[1]] = $m[2];
                continue;
            }
            if (\str_starts_with($line, '# HELP ') || \str_starts_with($line, '#')) {
                if (\str_starts_with($line, '# TYPE')) {
                    throw new \UnexpectedValueException("bad TYPE, {$where}");
                }
                continue;
            }
            if (!\preg_match('/^(' . self::NAME . ')(?:\{(.*)\})? ([^ ]+)$/', $line, $m)) {
                throw new \UnexpectedValueException("unparsable sample, {$where}");
            }
            $labels = self::labels($m[2], $where);
            $value = self::value($m[3], $where);
            $family = \preg_replace('/_(bucket|sum|count)$/', '', $m[1]);
            $family = isset($types[$m[1]]) ? $m[1] : $family;
            if (!isset($types[$family])) {
                throw new \UnexpectedValueException("sample without a TYPE for its family, {$where}");
            }
            $familiesSeen[$family] = true;
            \ksort($labels);
            $key = $m[1] . \json_encode($labels);
            if (isset($series[$key])) {
                throw new \UnexpectedValueException("repeated series, {$where}");
            }
            $series[$key] = true;
            $samples[] = ['name' => $m[1], 'labels' => $labels, 'value' => $value];
        }
        foreach ($types as $family => $type) {
            if ($type === 'histogram') {
                self::checkHistogram($family, $samples);
            }
        }

        return ['types' => $types, 'samples' => $samples];
    }

    /** @return array<string, string> */
    private static function labels(string $text, string $where): array
    {
        $labels = [];
        $rest = $text;
        while ($rest !== '') {
            if (!\preg_match('/^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\\\n]|\\\\[\\\\"n])*)"(,|$)/', $rest, $m)) {
                throw new \UnexpectedValueException("bad labels, {$where}");
            }
            if (isset($labels[$m[1]])) {
                throw new \UnexpectedValueException("repeated label, {$where}");
            }
            $labels[$m[1]] = \stripcslashes($m[2]);
            $rest = (string) \substr($rest, \strlen($m[0]));
        }

        return $labels;
    }

    private static function value(string $text, string $where): float
    {
        return match (true) {
            $text === '+Inf' => \INF,
            $text === '-Inf' => -\INF,
            $text === 'NaN' => \NAN,
            \is_numeric($text) => (float) $text,
            default => throw new \UnexpectedValueException("bad value, {$where}"),
        };
    }

    /** @param list<array{name: string, labels: array<string, string>, value: float}> $samples */
    private static function checkHistogram(string $family, array $samples): void
    {
        $previous = -1.0;
        $bound = -\INF;
        $inf = null;
        $count = null;
        foreach ($samples as $sample) {
            if ($sample['name'] === "{$family}_bucket") {
                $le = self::value($sample['labels']['le'] ?? throw new \UnexpectedValueException("{$family} bucket without le"), $family);
                if ($le <= $bound || $sample['value'] < $previous) {
                    throw new \UnexpectedValueException("{$family}: buckets not in order or not cumulative");
                }
                [$bound, $previous] = [$le, $sample['value']];
                $inf = $le === \INF ? $sample['value'] : $inf;
            } elseif ($sample['name'] === "{$family}_count") {
                $count = $sample['value'];
            }
        }
        if ($inf === null || $count === null || $inf !== $count) {
            throw new \UnexpectedValueException("{$family}: the +Inf bucket must exist and equal _count");
        }
    }
}
