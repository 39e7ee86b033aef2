<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Observability;

use Petrel\Observability\RequestMetrics;
use PHPUnit\Framework\TestCase;

final class RequestMetricsTest extends TestCase
{
    /**
     * A worker's status counted in "requests" only what its handlers answered, while its
     * counts by status class had the refused too: `petrel status` showed REQUESTS 1 beside
     * 4XX 2. refusedTotal() is what the worker adds to make them one count.
     */
    public function testRefusedRequestsAreCountedByClassAndInAllAlike(): void
    {
        $metrics = new RequestMetrics();
        ++$metrics->inFlight;
        $metrics->record('GET', 200, 500_000);
        $metrics->refused(400);
        $metrics->refused(431);
        $metrics->refused(503);

        self::assertSame(3, $metrics->refusedTotal());
        $snapshot = $metrics->snapshot();
        self::assertSame([1 => 0, 2 => 0, 3 => 0, 4 => 2, 5 => 1], $snapshot['requests']['OTHER']);
        self::assertSame(1, \array_sum($snapshot['buckets']), 'the refused are not timed');
        self::assertSame(0, $metrics->inFlight);
    }

    /**
     * A request whose handler never returned (the worker died under it: a fatal error,
     * exit()) is answered as the worker ends; it counts by class and leaves the in-flight
     * gauge, untimed.
     */
    public function testAnAbandonedRequestCountsByClassAndLeavesTheInFlightGauge(): void
    {
        $metrics = new RequestMetrics();
        $metrics->inFlight = 2;
        $metrics->abandoned('GET', 500);
        $metrics->abandoned('BREW', 503);

        $snapshot = $metrics->snapshot();
        self::assertSame(1, $snapshot['requests']['GET'][5]);
        self::assertSame(1, $snapshot['requests']['OTHER'][5]);
        self::assertSame(0, $snapshot['in_flight']);
        self::assertSame(0, \array_sum($snapshot['buckets']), 'not timed');
        self::assertSame(0, $metrics->refusedTotal(), 'not refused: a handler saw them');
    }
}
