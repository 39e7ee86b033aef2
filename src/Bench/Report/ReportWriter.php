<?php

declare(strict_types=1);

namespace Petrel\Bench\Report;

use Petrel\Bench\BenchException;
use Petrel\Bench\PointResult;
use Petrel\Bench\Results;
use Petrel\Bench\ScenarioResult;
use Petrel\Bench\Scenario\Scenario;
use Petrel\Bench\SkipException;

/**
 * Writes DIR/results.json, DIR/report.md and the charts (DIR/NAME.png) from Results
 * alone, so a report can be remade from an old results.json.
 */
final class ReportWriter
{
    /** @param array<string, Scenario> $scenarios by name */
    public function __construct(private readonly array $scenarios, private readonly Gnuplot $gnuplot)
    {
    }

    /** @return list<string> the files written */
    public function write(Results $results, string $dir): array
    {
        if (!\is_dir($dir) && !@\mkdir($dir, 0755, true)) {
            throw new BenchException("Cannot create the output directory {$dir}");
        }
        $written = [];
        \file_put_contents("{$dir}/results.json", $results->toJson());
        $written[] = "{$dir}/results.json";
        $charts = [];
        $chartNotes = [];
        foreach ($results->scenarios as $scenario) {
            $chart = isset($this->scenarios[$scenario->name]) ? $this->scenarios[$scenario->name]->chart($scenario) : null;
            if ($chart === null || $chart->isEmpty()) {
                continue;
            }
            try {
                $charts[$scenario->name] = \basename($this->gnuplot->render($chart, $dir));
                $written[] = "{$dir}/{$charts[$scenario->name]}";
            } catch (SkipException | BenchException $error) {
                $chartNotes[$scenario->name] = 'No chart: ' . $error->getMessage();
            }
        }
        \file_put_contents("{$dir}/report.md", $this->markdown($results, $charts, $chartNotes));
        $written[] = "{$dir}/report.md";

        return $written;
    }

    /**
     * @param array<string, string> $charts scenario => chart file name
     * @param array<string, string> $chartNotes scenario => why it has no chart
     */
    public function markdown(Results $results, array $charts = [], array $chartNotes = []): string
    {
        $options = $results->options;
        $out = ['# Petrel benchmark — ' . self::date($results->started), ''];
        $out[] = \sprintf(
            '`%s` · %s s per run, %s after a %s s warm-up · load from %s (keep-alive) · the load generator, the servers and the databases share this machine\'s cores.',
            $results->command,
            self::option($options, 'duration_s'),
            (int) self::option($options, 'repeat') > 1 ? 'median of ' . self::option($options, 'repeat') . ' runs (min–max in brackets)' : 'one run per point',
            self::option($options, 'warmup_s'),
            self::option($options, 'load'),
        );
        if (($options['quick'] ?? false) === true) {
            $out[] = '';
            $out[] = '> **--quick run**: one short run per point, to check that every scenario works. The figures are not measurements.';
        }
        $out[] = '';
        $out[] = '## Machine';
        $out[] = '';
        $out[] = Markdown::table(['', ''], \array_map(static fn (string $k, string $v): array => [\str_replace('_', ' ', $k), $v], \array_keys($results->machine), $results->machine), ['l', 'l']);
        foreach ($results->scenarios as $result) {
            $scenario = $this->scenarios[$result->name] ?? null;
            $out[] = '## ' . ($scenario?->title() ?? $result->name);
            $out[] = '';
            if ($scenario !== null) {
                $out[] = $scenario->description();
                $out[] = '';
                $out[] = $scenario->summary($result);
            }
            if (isset($charts[$result->name])) {
                $out[] = "![{$result->name}]({$charts[$result->name]})";
                $out[] = '';
            } elseif (isset($chartNotes[$result->name])) {
                $out[] = "_{$chartNotes[$result->name]}_";
                $out[] = '';
            }
            foreach ($result->notes as $note) {
                $out[] = "- ⚠ {$note}";
            }
            if ($result->notes !== []) {
                $out[] = '';
            }
            $out[] = '<details><summary>All figures</summary>';
            $out[] = '';
            $out[] = self::details($result);
            $out[] = '</details>';
            $out[] = '';
        }
        $out[] = '---';
        $out[] = 'req/s, latency percentiles, errors (connect/read/write/timeout) and non-2xx answers are the load generator\'s; '
            . 'CPU % (100 % = one core) and peak RSS (summed over the processes) are the server\'s processes, read from /proc during each run. '
            . 'Made by `bin/petrel bench`; every raw figure is in results.json, the load generator\'s raw output under raw/.';

        return \implode("\n", $out) . "\n";
    }

    /** Every measured figure of every point (medians; min–max for req/s). */
    private static function details(ScenarioResult $result): string
    {
        $rows = [];
        foreach ($result->points as $point) {
            $rows[] = $point->measured() ? [
                $point->point->describe(),
                Markdown::rateRange($point),
                Markdown::metric($point, 'p50_ms'),
                Markdown::metric($point, 'p90_ms'),
                Markdown::metric($point, 'p99_ms'),
                Markdown::failures($point),
                Markdown::metric($point, 'cpu_percent'),
                Markdown::metric($point, 'peak_rss_mb'),
            ] : [$point->point->describe(), 'not measured: ' . self::oneLine($point), '', '', '', '', '', ''];
        }

        return Markdown::table(['Point', 'req/s (min–max)', 'p50 ms', 'p90 ms', 'p99 ms', 'errors', 'server CPU', 'server peak RSS'], $rows);
    }

    private static function oneLine(PointResult $point): string
    {
        return \strtok((string) $point->error, "\n") ?: 'no runs';
    }

    /** @param array<string, int|float|string|bool> $options */
    private static function option(array $options, string $key): string
    {
        $value = $options[$key] ?? '?';

        return \is_bool($value) ? ($value ? 'yes' : 'no') : (string) $value;
    }

    private static function date(string $iso): string
    {
        $time = \strtotime($iso);

        return $time === false ? $iso : \gmdate('Y-m-d H:i \U\T\C', $time);
    }
}
