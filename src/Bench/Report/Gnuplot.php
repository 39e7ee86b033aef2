<?php

declare(strict_types=1);

namespace Petrel\Bench\Report;

use Petrel\Bench\BenchException;
use Petrel\Bench\SkipException;
use Petrel\Bench\Workspace;

/**
 * Draws a Chart as PNG with gnuplot (Debian: gnuplot-nox). The data file and the script
 * are written next to it under charts/ so a user can restyle a chart and redraw it with
 * `gnuplot charts/NAME.gp`.
 */
final class Gnuplot
{
    private ?string $terminal = null;

    public function __construct(private readonly ?string $binary = null)
    {
    }

    public static function find(): self
    {
        return new self(Workspace::which('gnuplot'));
    }

    public function available(): bool
    {
        return $this->binary !== null;
    }

    /**
     * @return string the path of the PNG, $dir/NAME.png
     * @throws SkipException when gnuplot is not installed
     * @throws BenchException when it fails
     */
    public function render(Chart $chart, string $dir): string
    {
        if ($this->binary === null) {
            throw SkipException::missing('gnuplot', 'gnuplot-nox');
        }
        if (!\is_dir("{$dir}/charts")) {
            \mkdir("{$dir}/charts", 0755, true);
        }
        $data = "{$dir}/charts/{$chart->name}.dat";
        $script = "{$dir}/charts/{$chart->name}.gp";
        $png = "{$dir}/{$chart->name}.png";
        \file_put_contents($data, self::data($chart));
        \file_put_contents($script, $this->script($chart, "../{$chart->name}.png", "{$chart->name}.dat"));
        @\unlink($png);
        // Paths in the script are relative to charts/, so run gnuplot there.
        $process = \proc_open([$this->binary, \basename($script)], [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, "{$dir}/charts");
        if ($process === false) {
            throw new BenchException('Cannot run gnuplot');
        }
        $errors = \stream_get_contents($pipes[2]);
        \fclose($pipes[1]);
        \fclose($pipes[2]);
        $status = \proc_close($process);
        if ($status !== 0 || !\is_file($png) || \filesize($png) === 0) {
            throw new BenchException("gnuplot failed on {$script}: " . \trim((string) $errors));
        }

        return $png;
    }

    /** Tab-separated: x label, then y, min, max of each series. */
    public static function data(Chart $chart): string
    {
        $names = \array_keys($chart->series);
        $lines = ["# x\t" . \implode("\t", \array_map(static fn (string $n): string => "{$n} (median, min, max)", $names))];
        foreach ($chart->xs() as $x) {
            $row = [$x];
            foreach ($chart->series as $points) {
                $found = ['NaN', 'NaN', 'NaN'];
                foreach ($points as [$px, $y, $min, $max]) {
                    if ($px === $x) {
                        $found = [self::number($y), self::number($min), self::number($max)];
                    }
                }
                \array_push($row, ...$found);
            }
            $lines[] = \implode("\t", $row);
        }

        return \implode("\n", $lines) . "\n";
    }

    /** Series colours, in order: blue, orange, green, purple, grey. */
    private const COLOURS = ['#3b7dd8', '#e07b39', '#3a9d5d', '#8e5cc4', '#7f7f7f'];

    public function script(Chart $chart, string $output, string $data): string
    {
        $count = \count($chart->series);
        $xs = $chart->xs();
        $tics = [];
        foreach ($xs as $i => $x) {
            $tics[] = self::label($x) . " {$i}";
        }
        $lines = [
            "set terminal {$this->terminal()} size 1000,560 font 'sans,11'",
            'set output ' . self::quote($output),
            'set title ' . self::quote($chart->title) . ' noenhanced',
            'set xlabel ' . self::quote($chart->xLabel) . ' noenhanced',
            'set ylabel ' . self::quote($chart->yLabel) . ' noenhanced',
            "set datafile separator '\\t'",
            "set datafile missing 'NaN'",
            'set grid ytics lc rgb "#dddddd"',
            'set border 3',
            'set bmargin 5',
            'set xtics (' . \implode(', ', $tics) . ') nomirror noenhanced',
            'set ytics nomirror',
            'set key noenhanced ' . ($count > 1 ? 'top right' : 'off'),
            "set format y '%.0f'",
            \sprintf('set xrange [-0.6:%.1f]', \count($xs) - 0.4),
            $chart->logY ? 'set logscale y' : 'set yrange [0:*]',
        ];
        if ($count > 1 && !$chart->logY) {
            $lines[] = 'set offsets 0, 0, graph 0.15, 0'; // headroom: the key must not cover the tallest bar's label
        }
        $plots = [];
        $index = 0;
        foreach (\array_keys($chart->series) as $name) {
            $y = 2 + 3 * $index;
            $source = $index === 0 ? self::quote($data) : "''";
            $colour = self::COLOURS[$index % \count(self::COLOURS)];
            $plots[] = $chart->style === Chart::BARS
                ? \sprintf("%s using %d:%d:%d title %s lc rgb '%s'", $source, $y, $y + 1, $y + 2, self::quote($name), $colour)
                : \sprintf("%s using 0:%d:%d:%d with yerrorlines lw 2 pt 7 lc rgb '%s' title %s", $source, $y, $y + 1, $y + 2, $colour, self::quote($name));
            ++$index;
        }
        if ($chart->style === Chart::BARS) {
            \array_push($lines,
                'set style data histogram',
                'set style histogram errorbars gap 1 lw 1',
                'set style fill solid 0.9 border -1',
            );
            // The median over each bar; bar i of n in a cluster sits at x + (i - (n-1)/2) / (n + gap).
            for ($i = 0; $i < $count; ++$i) {
                $y = 2 + 3 * $i;
                $shift = ($i - ($count - 1) / 2) / ($count + 1);
                $plots[] = \sprintf("'' using (\$0%+.4f):%d:(sprintf('%%.0f', \$%d)) with labels offset 0,0.7 font ',%d' notitle",
                    $shift, $y + 2, $y, $count > 1 ? 8 : 10);
            }
        } else {
            $lines[] = 'set pointsize 1.2';
        }
        $lines[] = 'plot ' . \implode(", \\\n     ", $plots);

        return \implode("\n", $lines) . "\n";
    }

    /** A gnuplot string for an x label, wrapped onto two lines when long. */
    private static function label(string $x): string
    {
        $text = \strlen($x) > 18 ? \wordwrap($x, 18, "\n", false) : $x;

        return '"' . \str_replace(['\\', '"', "\n"], ['\\\\', '\\"', '\\n'], $text) . '"';
    }

    /** pngcairo (anti-aliased) when this gnuplot has it, else the libgd png terminal. */
    private function terminal(): string
    {
        if ($this->terminal === null) {
            $this->terminal = 'png';
            if ($this->binary !== null) {
                \exec(\escapeshellarg($this->binary) . " -e 'set terminal pngcairo' 2>&1", $output, $status);
                if ($status === 0 && $output === []) {
                    $this->terminal = 'pngcairo';
                }
            }
        }

        return $this->terminal;
    }

    private static function number(float $value): string
    {
        return \is_finite($value) ? \rtrim(\rtrim(\sprintf('%.3f', $value), '0'), '.') : 'NaN';
    }

    private static function quote(string $text): string
    {
        return "'" . \str_replace("'", "''", $text) . "'";
    }
}
