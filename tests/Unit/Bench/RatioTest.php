<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Bench;

use Petrel\Bench\Point;
use Petrel\Bench\PointResult;
use Petrel\Bench\ScenarioResult;
use Petrel\Bench\Scenario\BlogScenario;
use PHPUnit\Framework\TestCase;

/**
 * Ratios between points: round by round for points that took turns (their runs say which
 * round), of the medians otherwise; and how the blog's summary tells them.
 */
final class RatioTest extends TestCase
{
    public function testPointsThatTookTurnsCompareRoundByRound(): void
    {
        // Ratios by round 1.0, 0.5, 1.5: median 1.0. The medians' ratio would be 150/100.
        $result = new ScenarioResult('s', [
            self::point('a', [100, 200, 150], rounds: true),
            self::point('b', [100, 400, 100], rounds: true),
        ]);

        $ratio = $result->compare('a', 'b');

        self::assertNotNull($ratio);
        self::assertSame([1.0, 0.5, 1.5, 3], [$ratio->median, $ratio->min, $ratio->max, $ratio->rounds]);
        self::assertSame(1.0, $result->ratio('a', 'b'));
    }

    public function testOnlyRoundsBothWereMeasuredInArePaired(): void
    {
        // a left the rounds after its first run (it failed): one pair.
        $result = new ScenarioResult('s', [
            self::point('a', [300], rounds: true),
            self::point('b', [100, 400, 100], rounds: true),
        ]);

        self::assertSame(3.0, $result->ratio('a', 'b'));
        self::assertSame(1, $result->compare('a', 'b')?->rounds);
    }

    public function testRunsWithoutRoundsCompareTheirMedians(): void
    {
        $result = new ScenarioResult('s', [
            self::point('a', [100, 200, 150]),
            self::point('b', [100, 400, 100]),
            self::point('silent', [0, 0, 0]),
            new PointResult(new Point('x', 'unmeasured', '', '/', 1, ''), [], 'failed to start'),
        ]);

        $ratio = $result->compare('a', 'b');

        self::assertNotNull($ratio);
        self::assertSame([1.5, 1.5, 1.5, 0], [$ratio->median, $ratio->min, $ratio->max, $ratio->rounds]);
        self::assertNull($result->compare('a', 'silent'), 'a ratio to nothing answered');
        self::assertNull($result->compare('a', 'unmeasured'));
        self::assertNull($result->compare('a', 'not planned'));
    }

    public function testTheBlogIsToldAsAFractionOfTheHelloOfTheSameRounds(): void
    {
        $blog = new BlogScenario();
        $result = new ScenarioResult('blog', [
            self::point('Petrel direct', [19000, 21000, 20000], rounds: true),
            self::point('nginx → Petrel (reverse proxy)', [15000, 16000, 15500], rounds: true),
            self::point('nginx + php-fpm (classic)', [400, 410, 390], rounds: true),
            self::point('Petrel hello (for scale)', [50000, 50000, 47619], rounds: true),
        ]);

        $summary = $blog->summary($result);

        self::assertStringContainsString('| Petrel hello (for scale) | 50,000 (47,619–50,000) |', $summary);
        self::assertStringContainsString('- Petrel direct / Petrel hello: **0.42×** (0.38×–0.42× over 3 rounds)', $summary);
        self::assertStringContainsString('- Petrel direct / behind nginx: **1.29×** (1.27×–1.31× over 3 rounds)', $summary);
    }

    public function testABlogRunWithoutTheHelloHasNoLineForIt(): void
    {
        $result = new ScenarioResult('blog', [
            self::point('Petrel direct', [20000]),
            self::point('nginx → Petrel (reverse proxy)', [16000]),
            self::point('nginx + php-fpm (classic)', [400]),
        ]);

        $summary = (new BlogScenario())->summary($result);

        self::assertStringNotContainsString('hello', $summary);
        self::assertStringContainsString('- Petrel direct / classic php-fpm: **50.0×**' . "\n", $summary);
    }

    /** @param list<int> $rates req/s of each run, in the order of the rounds */
    private static function point(string $series, array $rates, bool $rounds = false): PointResult
    {
        $runs = [];
        foreach ($rates as $i => $rps) {
            $runs[] = ['rps' => (float) $rps, 'p50_ms' => 1.0, 'p99_ms' => 2.0] + ($rounds ? ['round' => $i + 1] : []);
        }

        return new PointResult(new Point($series, $series, '', '/', 100, ''), $runs);
    }
}
