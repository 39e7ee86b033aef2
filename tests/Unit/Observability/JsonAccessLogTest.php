<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Observability;

use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Observability\JsonAccessLog;
use PHPUnit\Framework\TestCase;

final class JsonAccessLogTest extends TestCase
{
    private string $file;

    protected function setUp(): void
    {
        $this->file = (string) \tempnam(\sys_get_temp_dir(), 'petrel-json-access-');
    }

    protected function tearDown(): void
    {
        @\unlink($this->file);
    }

    public function testRemoteIsTheClientAddressWithoutItsPort(): void
    {
        $log = new JsonAccessLog($this->file);
        $log->log((new Request('GET', '/a'))->withRemoteAddress('127.0.0.1:39826'), Response::text('ok'), 1_000_000);
        $log->log((new Request('GET', '/b'))->withRemoteAddress('[::1]:40000'), Response::text('ok'), 1_000_000);
        $log->log(new Request('GET', '/c'), Response::text('ok'), 1_000_000);

        $remotes = \array_map(
            static fn (string $line): mixed => (array) \json_decode($line, true, 512, \JSON_THROW_ON_ERROR) + ['remote' => 'missing'],
            \explode("\n", \rtrim((string) \file_get_contents($this->file), "\n")),
        );
        self::assertSame(['127.0.0.1', '::1', null], \array_column($remotes, 'remote'));
    }
}
