<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\Internal\PeerAddress;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class PeerAddressTest extends TestCase
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
        self::assertSame($expected, PeerAddress::forLog($peer));
    }

    /** @return iterable<string, array{?string, array{?string, ?string}}> */
    public static function cgiPeers(): iterable
    {
        yield 'IPv4 with port' => ['192.0.2.7:51234', ['192.0.2.7', '51234']];
        yield 'IPv6 with port' => ['[::1]:40000', ['::1', '40000']];
        yield 'IPv6 without port' => ['2001:db8::1', ['2001:db8::1', null]];
        yield 'unix socket path: a local peer, as nginx tells php-fpm' => ['/run/petrel.sock', ['127.0.0.1', null]];
        yield 'unknown' => ['', [null, null]];
    }

    /** @param array{?string, ?string} $expected */
    #[DataProvider('cgiPeers')]
    public function testSplitForTheCgiVariables(?string $peer, array $expected): void
    {
        self::assertSame($expected, PeerAddress::split($peer));
    }
}
