<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Socket;

use Petrel\Socket\Internal\Address;
use Petrel\Socket\SocketError;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class AddressTest extends TestCase
{
    /** @return iterable<string, array{string, string}> */
    public static function addresses(): iterable
    {
        yield 'host:port' => ['127.0.0.1:8080', 'tcp://127.0.0.1:8080'];
        yield 'name' => ['db.local:0', 'tcp://db.local:0'];
        yield 'ipv6' => ['[::1]:65535', 'tcp://[::1]:65535'];
        yield 'tcp://' => ['tcp://127.0.0.1:3306', 'tcp://127.0.0.1:3306'];
        yield 'tls://' => ['tls://example.org:443', 'tls://example.org:443'];
        yield 'path' => ['/run/app.sock', 'unix:///run/app.sock'];
        yield 'unix://' => ['unix:///run/app.sock', 'unix:///run/app.sock'];
    }

    #[DataProvider('addresses')]
    public function testAddressesBecomeStreamUris(string $address, string $uri): void
    {
        self::assertSame($uri, Address::toUri($address));
    }

    /**
     * PHP passes on a port's low 16 bits: 127.0.0.1:70000 connected to (or listened on)
     * port 4464, someone else's. Five digits were accepted, and tcp:// or tls:// addresses
     * were not checked at all (tcp://127.0.0.1, no port, reached PHP's own message).
     *
     * @return iterable<string, array{string, string}>
     */
    public static function badAddresses(): iterable
    {
        yield 'port past 65535' => ['127.0.0.1:70000', 'ports are 0-65535'];
        yield 'tcp:// port past 65535' => ['tcp://127.0.0.1:65536', 'ports are 0-65535'];
        yield 'tls:// port past 65535' => ['tls://[::1]:99999', 'ports are 0-65535'];
        yield 'six digits' => ['127.0.0.1:123456', 'expected host:port'];
        yield 'no port' => ['127.0.0.1', 'expected host:port'];
        yield 'tcp:// without a port' => ['tcp://127.0.0.1', 'expected host:port'];
    }

    #[DataProvider('badAddresses')]
    public function testABadAddressIsRefusedSayingWhy(string $address, string $why): void
    {
        $this->expectException(SocketError::class);
        $this->expectExceptionMessage($why);
        Address::toUri($address);
    }
}
