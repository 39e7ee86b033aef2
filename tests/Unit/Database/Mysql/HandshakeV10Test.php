<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Mysql;

use Petrel\Database\Mysql\Internal\Capability;
use Petrel\Database\Mysql\Internal\HandshakeV10;
use Petrel\Database\Mysql\Internal\PacketFramer;
use Petrel\Database\Mysql\MysqlException;
use Petrel\Database\Mysql\ProtocolException;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(HandshakeV10::class)]
final class HandshakeV10Test extends TestCase
{
    /**
     * Captured from MariaDB 10.11.19 (Debian 12 package) on 127.0.0.1, packet header included.
     */
    public const MARIADB_10_11 = '640000000a352e352e352d31302e31312e31392d4d6172696144422d302b64656231327531000400'
        . '00005e26425979745a4600fef7080200ff81150000000000001d0000002f59516c4d793b582c6d63290'
        . '06d7973716c5f6e61746976655f70617373776f726400';

    /**
     * MySQL 8.0.32's greeting as dissected field by field in the blog post "Exploring the
     * MySQL protocol" (2024-01-08), with the 4-byte packet header added.
     */
    public const MYSQL_8_0 = '4a0000000a382e302e333200080000001c4619465976404b00ffffff0200ffdf1500000000000000'
        . '0000003f71347153455e5d227a323d0063616368696e675f736861325f70617373776f726400';

    /** @return iterable<string, array{bool}> */
    public static function feeding(): iterable
    {
        yield 'whole' => [false];
        yield 'byte by byte' => [true];
    }

    private static function read(string $hex, bool $byteByByte): HandshakeV10
    {
        $framer = new PacketFramer();
        $payload = null;
        foreach (Wire::chunks((string) hex2bin($hex), $byteByByte) as $chunk) {
            $framer->feed($chunk);
            $payload ??= $framer->next();
        }
        self::assertNotNull($payload);
        self::assertSame(1, $framer->sequence());

        return HandshakeV10::parse($payload);
    }

    #[DataProvider('feeding')]
    public function testMariaDb1011Greeting(bool $byteByByte): void
    {
        $greeting = self::read(self::MARIADB_10_11, $byteByByte);
        self::assertSame(10, $greeting->protocolVersion);
        self::assertSame('5.5.5-10.11.19-MariaDB-0+deb12u1', $greeting->serverVersion);
        self::assertSame('10.11.19-MariaDB-0+deb12u1', $greeting->version());
        self::assertTrue($greeting->isMariaDb());
        self::assertSame(4, $greeting->connectionId);
        self::assertSame('^&BYytZF/YQlMy;X,mc)', $greeting->nonce);
        self::assertSame(20, \strlen($greeting->nonce));
        self::assertSame(0x81FFF7FE, $greeting->capabilities);
        self::assertFalse($greeting->supports(Capability::MYSQL), 'MariaDB leaves CLIENT_MYSQL unset');
        self::assertTrue($greeting->supports(Capability::DEPRECATE_EOF));
        self::assertTrue($greeting->supports(Capability::PLUGIN_AUTH_LENENC_CLIENT_DATA));
        self::assertFalse($greeting->supportsTls(), 'that server ran without certificates');
        self::assertSame(
            Capability::MARIADB_PROGRESS | Capability::MARIADB_STMT_BULK_OPERATIONS
                | Capability::MARIADB_EXTENDED_METADATA | Capability::MARIADB_CACHE_METADATA,
            $greeting->mariaDbCapabilities,
        );
        self::assertSame(8, $greeting->charset);
        self::assertSame(2, $greeting->statusFlags);
        self::assertSame('mysql_native_password', $greeting->authPluginName);
    }

    #[DataProvider('feeding')]
    public function testMySql80Greeting(bool $byteByByte): void
    {
        $greeting = self::read(self::MYSQL_8_0, $byteByByte);
        self::assertSame('8.0.32', $greeting->serverVersion);
        self::assertSame('8.0.32', $greeting->version());
        self::assertFalse($greeting->isMariaDb());
        self::assertSame(8, $greeting->connectionId);
        self::assertSame(hex2bin('1c4619465976404b3f71347153455e5d227a323d'), $greeting->nonce);
        self::assertSame(0xDFFFFFFF, $greeting->capabilities);
        self::assertSame(0, $greeting->mariaDbCapabilities);
        self::assertTrue($greeting->supportsTls());
        self::assertTrue($greeting->supports(Capability::DEPRECATE_EOF | Capability::QUERY_ATTRIBUTES));
        self::assertSame(255, $greeting->charset);
        self::assertSame('caching_sha2_password', $greeting->authPluginName);
    }

    public function testErrorInsteadOfGreetingThrowsTheServerError(): void
    {
        // Sent before the 4.1 protocol is agreed: no SQLSTATE marker.
        try {
            HandshakeV10::parse("\xFF\x10\x04Too many connections");
            self::fail('expected an exception');
        } catch (MysqlException $e) {
            self::assertSame(1040, $e->getCode());
            self::assertSame('HY000', $e->getSqlState());
            self::assertSame('Too many connections', $e->getServerMessage());
        }
    }

    public function testOtherProtocolVersionsAreRejected(): void
    {
        $this->expectException(ProtocolException::class);
        HandshakeV10::parse("\x09" . "3.23.58\0" . str_repeat("\0", 12));
    }

    public function testPluginNameWithoutTerminatingNul(): void
    {
        $payload = (string) hex2bin(substr(self::MYSQL_8_0, 8));
        $greeting = HandshakeV10::parse(substr($payload, 0, -1));
        self::assertSame('caching_sha2_password', $greeting->authPluginName);
    }
}
