<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Observability;

use Petrel\Observability\Internal\RemoteAddr;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class RemoteAddrTest extends TestCase
{
    /** @return iterable<string, array{?string, ?string}> */
    public static function peers(): iterable
    {
        yield 'IPv4 with port' => ['127.0.0.1:39890', '127.0.0.1'];
        yield 'IPv6 with port: no brackets, as nginx' => ['[::1]:5678', '::1'];
        yield 'IPv4-mapped IPv6' => ['[::ffff:192.0.2.7]:443', '::ffff:192.0.2.7'];
        yield 'IPv4 without port' => ['192.0.2.7', '192.0.2.7'];
        yield 'IPv6 without port' => ['2001:db8::1', '2001:db8::1'];
        yield 'unix socket path' => ['/run/petrel.sock', 'unix:'];
        yield 'unknown (PHP names no unix peer)' => ['', null];
        yield 'none' => [null, null];
    }

    #[DataProvider('peers')]
    public function testTheAddressWithoutThePort(?string $peer, ?string $expected): void
    {
        self::assertSame($expected, RemoteAddr::of($peer));
    }
}
