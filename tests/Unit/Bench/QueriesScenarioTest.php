<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Bench;

use Petrel\Bench\Scenario\QueriesScenario;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

#[CoversClass(QueriesScenario::class)]
final class QueriesScenarioTest extends TestCase
{
    public function testAServerTakingFewerConnectionsThanTheLargestPointsMayOpenIsWarnedAbout(): void
    {
        self::assertSame(50 * 64 + 100, QueriesScenario::connectionsNeeded());
        self::assertSame(
            'the MariaDB given takes 1,000 connections (max_connections); the 50-worker points may open up to 3,200 '
            . '(50 workers × a pool of 64): raise it to 3,300, or their requests beyond it fail with "Too many connections" (500s)',
            QueriesScenario::capacityWarning(1000),
        );
        self::assertNotNull(QueriesScenario::capacityWarning(3299));
        self::assertNull(QueriesScenario::capacityWarning(3300));
        self::assertNull(QueriesScenario::capacityWarning(4000));
    }

    public function testThePoolIsTheOneExamplesDbPhpConfigures(): void
    {
        $app = (string) \file_get_contents(\dirname(__DIR__, 3) . '/examples/db.php');

        self::assertSame(1, \preg_match('/new PoolConfig\(max: (\d+)\)/', $app, $match), 'examples/db.php sets its pool size');
        self::assertSame(QueriesScenario::POOL, (int) $match[1]);
    }
}
