<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Bench;

use Petrel\Bench\Bench;
use Petrel\Bench\BenchException;
use Petrel\Bench\Report\Gnuplot;
use Petrel\Bench\Report\ReportWriter;
use Petrel\Bench\Results;
use Petrel\Tests\Support\RequiresServices;
use PHPUnit\Framework\TestCase;

/**
 * report.md and the charts, made from the results.json of a real `--quick` run
 * (fixtures/results-quick.json).
 */
final class ReportTest extends TestCase
{
    use RequiresServices;

    private string $dir = '';

    protected function setUp(): void
    {
        $this->dir = \sys_get_temp_dir() . '/petrel-report-test-' . \getmypid() . '-' . \bin2hex(\random_bytes(3));
    }

    protected function tearDown(): void
    {
        foreach ([...(\glob("{$this->dir}/charts/*") ?: []), ...(\glob("{$this->dir}/*") ?: [])] as $file) {
            \is_dir($file) ? \rmdir($file) : \unlink($file);
        }
        @\rmdir($this->dir);
    }

    public function testResultsSurviveAJsonRoundTrip(): void
    {
        $results = self::results();

        self::assertSame(['hello', 'queries', 'latency', 'blog'], \array_map(static fn ($s) => $s->name, $results->scenarios));
        self::assertSame($results->toJson(), Results::fromJson($results->toJson())->toJson());
        self::assertSame(6772.7, $results->scenario('queries')?->rps('coroutine', 'w=2 c=100'));
    }

    public function testNotAResultsFile(): void
    {
        $this->expectException(BenchException::class);
        $this->expectExceptionMessage('lacks "scenarios"');

        Results::fromJson('{"hello": 1}');
    }

    public function testReportHasEveryScenarioShapedLikeTheSeeds(): void
    {
        $markdown = (new ReportWriter(Bench::scenarios(), new Gnuplot(null)))->markdown(self::results());

        self::assertStringContainsString('# Petrel benchmark — 2026-11-22 05:43 UTC', $markdown);
        self::assertStringContainsString('**--quick run**', $markdown);
        self::assertStringContainsString('| cores | 2 |', $markdown);
        // hello: one row per server, with its ratio to nginx
        self::assertStringContainsString('| nginx return 200 | 84,910 | 10.7 | 1.00× |', $markdown);
        self::assertMatchesRegularExpression('/- Petrel coroutine \/ nginx \+ php-fpm: \*\*[\d.]+×\*\*/', $markdown);
        // queries: the seed's workers × concurrency table
        self::assertStringContainsString('| 2 | 100 | 3,580 | 6,773 | 1.89× | 56.9 | 34.7 |', $markdown);
        self::assertStringContainsString('| 50 | 500 | 3,329 | 3,067 | 0.92× |', $markdown);
        // latency: one row per server-side wait
        self::assertStringContainsString('| 50 ms | 10.0 | 1,134 | 113.4× |', $markdown);
        // blog: direct, proxy, classic and their ratios
        self::assertStringContainsString('| nginx + php-fpm (classic) | 230 |', $markdown);
        self::assertStringContainsString('- Petrel direct / classic php-fpm: **28.0×**', $markdown);
        // every figure, and where they come from
        self::assertSame(4, \substr_count($markdown, '<details><summary>All figures</summary>'));
        self::assertStringContainsString('| coroutine, w=8 c=300 | 2,738 | 68.8 | 313 | 502 | 0 | 56 % | 199 MB |', $markdown);
    }

    public function testWritesReportResultsAndOneChartPerScenario(): void
    {
        $gnuplot = Gnuplot::find();
        if (!$gnuplot->available()) {
            self::skipUnlessRequired('gnuplot is not installed (apt-get install gnuplot-nox)');
        }

        $written = (new ReportWriter(Bench::scenarios(), $gnuplot))->write(self::results(), $this->dir);

        foreach (['hello', 'queries', 'latency', 'blog'] as $chart) {
            $png = "{$this->dir}/{$chart}.png";
            self::assertContains($png, $written);
            self::assertStringStartsWith("\x89PNG\r\n", (string) \file_get_contents($png, false, null, 0, 8));
            [$width, $height] = \getimagesize($png) ?: [0, 0];
            self::assertSame([1000, 560], [$width, $height]);
            self::assertFileExists("{$this->dir}/charts/{$chart}.gp");
            self::assertStringContainsString("![{$chart}]({$chart}.png)", (string) \file_get_contents("{$this->dir}/report.md"));
        }
        self::assertSame(self::results()->toJson(), \file_get_contents("{$this->dir}/results.json"));
    }

    public function testWithoutGnuplotTheReportSaysWhatToInstall(): void
    {
        (new ReportWriter(Bench::scenarios(), new Gnuplot(null)))->write(self::results(), $this->dir);

        $report = (string) \file_get_contents("{$this->dir}/report.md");
        self::assertStringContainsString('_No chart: gnuplot is not installed (Debian: apt-get install gnuplot-nox)_', $report);
        self::assertSame([], \glob("{$this->dir}/*.png"));
    }

    private static function results(): Results
    {
        return Results::fromJson((string) \file_get_contents(__DIR__ . '/fixtures/results-quick.json'));
    }
}
