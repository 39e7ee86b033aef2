<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Bench;

use Petrel\Bench\Report\Chart;
use Petrel\Bench\Report\Gnuplot;
use PHPUnit\Framework\TestCase;

final class GnuplotTest extends TestCase
{
    public function testDataHasOneRowPerXAndNaNForMissingPoints(): void
    {
        $chart = new Chart('q', 'Title', 'x', 'req/s', Chart::BARS, [
            'sync' => [['w=2', 100.0, 90.0, 110.5], ['w=8', 200.0, 200.0, 200.0]],
            'coroutine' => [['w=2', 300.25, 300.0, 301.0]],
        ]);

        self::assertSame(
            "# x\tsync (median, min, max)\tcoroutine (median, min, max)\n"
            . "w=2\t100\t90\t110.5\t300.25\t300\t301\n"
            . "w=8\t200\t200\t200\tNaN\tNaN\tNaN\n",
            Gnuplot::data($chart),
        );
    }

    public function testBarsGetLabelledTicksAndValueLabels(): void
    {
        $chart = new Chart('hello', "It's fast", '', 'req/s', Chart::BARS, [
            'req/s' => [['Petrel coroutine', 1.0, 1.0, 1.0], ['nginx + php-fpm (classic)', 2.0, 2.0, 2.0]],
        ]);

        $script = (new Gnuplot(null))->script($chart, 'out.png', 'hello.dat');

        self::assertStringContainsString("set title 'It''s fast' noenhanced", $script);
        self::assertStringContainsString('set xtics ("Petrel coroutine" 0, "nginx + php-fpm\n(classic)" 1) nomirror', $script);
        self::assertStringContainsString('set style histogram errorbars', $script);
        self::assertStringContainsString("plot 'hello.dat' using 2:3:4 title 'req/s'", $script);
        self::assertStringContainsString("with labels", $script);
        self::assertStringContainsString('set yrange [0:*]', $script);
    }

    public function testLinesOnALogScale(): void
    {
        $chart = new Chart('latency', 'L', 'wait', 'req/s', Chart::LINES, [
            'sync' => [['0 ms', 5000.0, 4000.0, 6000.0], ['50 ms', 38.0, 37.0, 39.0]],
            'coroutine' => [['0 ms', 5000.0, 4000.0, 6000.0], ['50 ms', 1900.0, 1800.0, 2000.0]],
        ], logY: true);

        $script = (new Gnuplot(null))->script($chart, 'out.png', 'latency.dat');

        self::assertStringContainsString('set logscale y', $script);
        self::assertStringContainsString("'latency.dat' using 0:2:3:4 with yerrorlines", $script);
        self::assertStringContainsString("'' using 0:5:6:7 with yerrorlines", $script);
        self::assertStringNotContainsString('histogram', $script);
    }
}
