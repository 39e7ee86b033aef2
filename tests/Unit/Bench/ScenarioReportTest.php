<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Bench;

use Petrel\Bench\Bench;
use Petrel\Bench\Report\Gnuplot;
use Petrel\Bench\Report\ReportWriter;
use Petrel\Bench\Results;
use Petrel\Bench\Scenario\WebSocketScenario;
use PHPUnit\Framework\TestCase;

/**
 * The symfony and websocket scenarios' tables and charts, made from the results.json of
 * real full runs (fixtures/results-symfony.json, fixtures/results-websocket.json).
 */
final class ScenarioReportTest extends TestCase
{
    public function testSymfonyTableComparesTheThreeServersPerRoute(): void
    {
        $markdown = self::markdown('results-symfony.json');

        self::assertStringContainsString('## Symfony — nginx + php-fpm vs Petrel sync vs Petrel coroutine', $markdown);
        self::assertStringContainsString('| JSON /api/hello | 1,136 (1,028–1,201) | 17,341 (12,806–17,797) | 16,863 (14,106–17,625) | 15.3× | 14.8× | 0.97× | 279 / 21.4 / 17.9 |', $markdown);
        self::assertStringContainsString('| Twig / | 1,034 (738–1,052) | 11,608 (6,960–11,932) | 10,350 (10,160–13,254) | 11.2× | 10.0× | 0.89× |', $markdown);
    }

    public function testSymfonyChartHasOneSeriesPerServerOverTheRoutes(): void
    {
        $result = self::results('results-symfony.json')->scenario('symfony');
        self::assertNotNull($result);

        $chart = Bench::scenarios()['symfony']->chart($result);

        self::assertNotNull($chart);
        self::assertSame(['nginx + php-fpm', 'Petrel sync', 'Petrel coroutine'], \array_keys($chart->series));
        self::assertSame(['JSON /api/hello', 'Twig /'], $chart->xs());
    }

    public function testWebSocketTableHasEchoMemoryAndFanout(): void
    {
        $markdown = self::markdown('results-websocket.json');

        self::assertStringContainsString('| Echo, 100 connections | 50,743 round trips/s (42,093–65,784) | 1.88 | 8.63 | 59 % | 46 % |', $markdown);
        self::assertStringContainsString('| Echo, 1,000 connections | 27,374 round trips/s (23,882–29,145) | 30.8 | 97.4 | 50 % | 35 % |', $markdown);
        // (129.7 - 92.0) MB over 1,000 held connections, per run; median of three fresh starts
        self::assertStringContainsString('| Memory per open connection (1,000 held) | 39.8 KB (38.6–39.8), server RSS 92.1 → 131.0 MB |', $markdown);
        self::assertStringContainsString('| Broadcast fan-out to 1,000 clients | 22.0 ms (16.5–22.0) to reach all (median broadcast), slowest 54.9 ms, 40,860 deliveries/s | 22.0 | 51.8 |', $markdown);
        self::assertStringContainsString('- Echo round trips/s, 1,000 connections / 100: **0.54×**', $markdown);
    }

    public function testMemoryPerConnectionIsTheRssGrowthOverTheHeldConnections(): void
    {
        $memory = self::results('results-websocket.json')->scenario('websocket')?->find('memory', '1,000 held');

        $figures = WebSocketScenario::kbPerConnection($memory);

        self::assertCount(3, $figures);
        self::assertEqualsWithDelta((129.7 - 92.0) * 1024 / 1000, $figures[0], 1e-9);
        self::assertSame([], WebSocketScenario::kbPerConnection(null));
    }

    public function testWebSocketChartIsTheEchoRateWithFanoutAndMemoryInItsTitle(): void
    {
        $result = self::results('results-websocket.json')->scenario('websocket');
        self::assertNotNull($result);

        $chart = Bench::scenarios()['websocket']->chart($result);

        self::assertNotNull($chart);
        self::assertSame('WebSocket echo round trips/s (higher is better) — fan-out to 1,000: 22.0 ms, 39.8 KB per connection', $chart->title);
        self::assertSame(['100 connections', '1,000 connections'], $chart->xs());
        self::assertSame(50742.5, $chart->series['round trips/s'][0][1]);
    }

    private static function markdown(string $fixture): string
    {
        return (new ReportWriter(Bench::scenarios(), new Gnuplot(null)))->markdown(self::results($fixture));
    }

    private static function results(string $fixture): Results
    {
        return Results::fromJson((string) \file_get_contents(__DIR__ . "/fixtures/{$fixture}"));
    }
}
