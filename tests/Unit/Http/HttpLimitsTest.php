<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\HttpException;
use Petrel\Http\HttpLimits;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

#[CoversClass(HttpLimits::class)]
#[CoversClass(HttpException::class)]
final class HttpLimitsTest extends TestCase
{
    public function testDefaults(): void
    {
        $limits = new HttpLimits();
        self::assertSame(8192, $limits->maxRequestLineBytes);
        self::assertSame(16384, $limits->maxHeaderBytes);
        self::assertSame(100, $limits->maxHeaderCount);
        self::assertSame(32 * 1024 * 1024, $limits->maxBodyBytes);
        self::assertSame(1024 * 1024, $limits->bodyMemoryBytes);
        self::assertSame(1000, $limits->maxFormFields);
        self::assertSame(1024 * 1024, $limits->maxFormFieldBytes);
        self::assertSame(20, $limits->maxUploadFiles);
    }

    public function testWithersReturnChangedCopies(): void
    {
        $limits = new HttpLimits();
        $changed = $limits->withMaxRequestLineBytes(1)->withMaxHeaderBytes(2)->withMaxHeaderCount(3)
            ->withMaxBodyBytes(4)->withBodyMemoryBytes(5)->withMaxFormFields(6)->withMaxFormFieldBytes(7)
            ->withMaxUploadFiles(8);
        self::assertSame(
            [1, 2, 3, 4, 5, 6, 7, 8],
            [$changed->maxRequestLineBytes, $changed->maxHeaderBytes, $changed->maxHeaderCount, $changed->maxBodyBytes,
                $changed->bodyMemoryBytes, $changed->maxFormFields, $changed->maxFormFieldBytes, $changed->maxUploadFiles],
        );
        self::assertSame(8192, $limits->maxRequestLineBytes);
        self::assertSame(0, $limits->withBodyMemoryBytes(0)->bodyMemoryBytes, 'zero: always spool');
    }

    public function testInvalidLimitsAreRejected(): void
    {
        $this->expectException(\ValueError::class);
        (new HttpLimits())->withMaxHeaderCount(0);
    }

    public function testHttpExceptionStatus(): void
    {
        $e = new HttpException(413);
        self::assertSame(413, $e->getStatus());
        self::assertSame('Content Too Large', $e->getReason());
        $this->expectException(\ValueError::class);
        new HttpException(200);
    }
}
