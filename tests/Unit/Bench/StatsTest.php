<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Bench;

use InvalidArgumentException;
use Petrel\Bench\Stats;
use PHPUnit\Framework\TestCase;

final class StatsTest extends TestCase
{
    public function testMedianOfOddAndEvenCounts(): void
    {
        self::assertSame(3.0, Stats::median([5, 1, 3]));
        self::assertSame(2.5, Stats::median([4, 1, 3, 2]));
        self::assertSame(7.0, Stats::median([7]));
    }

    public function testMedianOfNothingIsAnError(): void
    {
        $this->expectException(InvalidArgumentException::class);

        Stats::median([]);
    }

    public function testSummarizeEveryMetric(): void
    {
        $summary = Stats::summarize([
            ['rps' => 100.0, 'errors' => 0],
            ['rps' => 300.0, 'errors' => 2],
            ['rps' => 200.0, 'errors' => 1],
        ]);

        self::assertSame(['rps' => 200.0, 'errors' => 1.0], $summary['median']);
        self::assertSame(['rps' => 100.0, 'errors' => 0.0], $summary['min']);
        self::assertSame(['rps' => 300.0, 'errors' => 2.0], $summary['max']);
        self::assertSame(['median' => [], 'min' => [], 'max' => []], Stats::summarize([]));
    }

    public function testTheRoundARunWasTakenInIsALabelNotAMetric(): void
    {
        $summary = Stats::summarize([['rps' => 100.0, 'round' => 1], ['rps' => 300.0, 'round' => 2]]);

        self::assertSame(['rps' => 200.0], $summary['median']);
        self::assertSame(['rps' => 100.0], $summary['min']);
    }

    public function testRatioToNothingIsNull(): void
    {
        self::assertSame(0.5, Stats::ratio(1.0, 2.0));
        self::assertNull(Stats::ratio(1.0, 0.0));
    }
}
