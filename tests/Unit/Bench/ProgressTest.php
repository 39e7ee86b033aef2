<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Bench;

use Petrel\Bench\Internal\Progress;
use PHPUnit\Framework\TestCase;

/** The progress line in a log: one line per point, numbered, with the time left. */
final class ProgressTest extends TestCase
{
    public function testTimeLeftCountsDownPointByPoint(): void
    {
        [$progress, $log] = self::progress(points: 3, secondsPerPoint: 10.0);

        $progress->point('hello', 'a', 1, 3);
        $progress->advance();
        $progress->point('hello', 'b', 1, 3);
        $progress->point('hello', 'b', 2, 3); // a log shows a point's first run only

        self::assertSame("[1/3] hello · a · run 1/3 · ~30s left\n[2/3] hello · b · run 1/3 · ~20s left\n", $log());
    }

    public function testTimeLeftCountsDownDuringRoundsOfPointsThatTakeTurns(): void
    {
        // Points that take turns are all done only at the last round: the runs move the estimate.
        [$progress, $log] = self::progress(points: 4, secondsPerPoint: 60.0);
        $progress->point('before', 'x', 1, 1);
        $progress->advance();
        $progress->turnsBegin();

        $progress->point('blog', 'a', 1, 3, 1);
        $progress->spent(20.0);
        $progress->point('blog', 'b', 1, 3, 2);
        $progress->spent(20.0);
        $progress->advance();
        $progress->advance();
        $progress->turnsEnd();
        $progress->point('after', 'y', 1, 1);

        self::assertSame(
            "[1/4] before · x · run 1/1 · ~4m00s left\n"
            . "[2/4] blog · a · run 1/3 · ~3m00s left\n"
            . "[3/4] blog · b · run 1/3 · ~2m40s left\n"
            . "[4/4] after · y · run 1/1 · ~1m00s left\n",
            $log(),
        );
    }

    /** @return array{Progress, \Closure(): string} the progress and what it wrote so far */
    private static function progress(int $points, float $secondsPerPoint): array
    {
        $stream = \fopen('php://memory', 'w+');
        self::assertIsResource($stream);

        return [new Progress($stream, $points, $secondsPerPoint), static function () use ($stream): string {
            \rewind($stream);

            return (string) \stream_get_contents($stream);
        }];
    }
}
