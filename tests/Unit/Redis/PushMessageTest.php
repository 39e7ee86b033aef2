<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Redis;

use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;
use Petrel\Redis\PushMessage;

#[CoversClass(PushMessage::class)]
final class PushMessageTest extends TestCase
{
    public function testKindIsTheFirstStringElement(): void
    {
        $push = new PushMessage(['invalidate', ['key1', 'key2']]);

        self::assertSame('invalidate', $push->kind());
        self::assertSame(['invalidate', ['key1', 'key2']], $push->data);
    }

    public function testKindIsEmptyWithoutALeadingString(): void
    {
        self::assertSame('', (new PushMessage([]))->kind());
        self::assertSame('', (new PushMessage([1, 'message']))->kind());
    }
}
