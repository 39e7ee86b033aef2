<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Redis;

use Petrel\Redis\Internal\ReplyShape;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

#[CoversClass(ReplyShape::class)]
final class ReplyShapeTest extends TestCase
{
    public function testScalars(): void
    {
        self::assertSame('x', ReplyShape::Raw->convert('x', 2));
        self::assertTrue(ReplyShape::Bool->convert(1, 2));
        self::assertFalse(ReplyShape::Bool->convert(0, 3));
        self::assertTrue(ReplyShape::Ok->convert('OK', 2));
        self::assertFalse(ReplyShape::Ok->convert(null, 3));
        self::assertNull(ReplyShape::Void->convert('OK', 2));
        self::assertSame(1.5, ReplyShape::Score->convert('1.5', 2));
        self::assertSame(INF, ReplyShape::Score->convert('inf', 2));
        self::assertSame(-INF, ReplyShape::Score->convert('-inf', 2));
        self::assertSame(2.5, ReplyShape::Score->convert(2.5, 3));
        self::assertNull(ReplyShape::Score->convert(null, 2));
    }

    public function testPairsFromAFlatListOrAMap(): void
    {
        self::assertSame(['a' => '1', 'b' => '2'], ReplyShape::Pairs->convert(['a', '1', 'b', '2'], 2));
        self::assertSame(['a' => '1', 7 => 'x'], ReplyShape::Pairs->convert(['a', '1', '7', 'x'], 2));
        self::assertSame([], ReplyShape::Pairs->convert([], 2));
        // RESP3 maps come keyed already, even when the keys look like list indexes.
        self::assertSame([0 => 'a', 1 => 'b'], ReplyShape::Pairs->convert([0 => 'a', 1 => 'b'], 3));
    }

    public function testScoresFromBothProtocols(): void
    {
        self::assertSame(['m' => 1.0, 'n' => INF], ReplyShape::Scores->convert(['m', '1', 'n', 'inf'], 2));
        self::assertSame(['m' => 1.0, 'n' => -INF], ReplyShape::Scores->convert([['m', 1.0], ['n', -INF]], 3));
        self::assertSame([], ReplyShape::Scores->convert([], 3));
    }
}
