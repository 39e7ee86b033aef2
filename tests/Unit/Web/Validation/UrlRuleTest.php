<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Validation;

use Petrel\Web\Validation\ValidationException;
use Petrel\Web\Validation\Validator;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

#[CoversClass(Validator::class)]
final class UrlRuleTest extends TestCase
{
    public function testUrlSchemesInTheRuleAreCaseInsensitive(): void
    {
        $rules = ['site' => 'url:HTTPS,Ftp'];

        self::assertSame(['site' => 'https://example.org'], Validator::validate(['site' => 'https://example.org'], $rules));
        self::assertSame(['site' => 'FTP://example.org'], Validator::validate(['site' => 'FTP://example.org'], $rules));
        $this->expectException(ValidationException::class);
        Validator::validate(['site' => 'http://example.org'], $rules);
    }
}
