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

    public function testARefusedRequestHasItsStatusAndBytesAndNoRequest(): void
    {
        (new JsonAccessLog($this->file))->refused('127.0.0.1:5000', 400, 80);
        $line = (array) \json_decode((string) \file_get_contents($this->file), true, 512, \JSON_THROW_ON_ERROR);
        self::assertSame(['remote' => '127.0.0.1', 'method' => null, 'target' => null, 'status' => 400, 'bytes' => 80], \array_intersect_key($line, ['remote' => 1, 'method' => 1, 'target' => 1, 'status' => 1, 'bytes' => 1]));
    }
}
