<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\Internal\AccessLog;
use Petrel\Http\Request;
use Petrel\Http\Response;
use PHPUnit\Framework\TestCase;

final class AccessLogTest extends TestCase
{
    private string $file;

    protected function setUp(): void
    {
        $this->file = (string) \tempnam(\sys_get_temp_dir(), 'petrel-access-');
    }

    protected function tearDown(): void
    {
        @\unlink($this->file);
    }

    public function testTheHostFieldIsTheClientAddressWithoutItsPortAsNginxWritesIt(): void
    {
        $log = new AccessLog($this->file);
        $log->log((new Request('GET', '/q1'))->withRemoteAddress('127.0.0.1:39890'), Response::text('ok'));
        $log->log((new Request('GET', '/q2'))->withRemoteAddress('[::1]:40000'), Response::text('ok'));
        $log->log(new Request('GET', '/q3'), Response::text('ok'));

        $hosts = \array_map(
            static fn (string $line): string => \explode(' ', $line, 2)[0],
            \explode("\n", \rtrim((string) \file_get_contents($this->file), "\n")),
        );
        self::assertSame(['127.0.0.1', '::1', '-'], $hosts);
        self::assertMatchesRegularExpression('~^127\.0\.0\.1 - - \[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\] "GET /q1 HTTP/1\.1" 200 2 "-" "-"\n~', (string) \file_get_contents($this->file));
    }

    /** A request refused before any handler (a bad head): logged without a request line, as nginx does. */
    public function testARefusedRequestIsLoggedWithoutARequestLine(): void
    {
        (new AccessLog($this->file))->refused('[::1]:40000', 431, 97);
        self::assertMatchesRegularExpression('~^::1 - - \[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\] "-" 431 97 "-" "-"\n$~', (string) \file_get_contents($this->file));
    }
}
