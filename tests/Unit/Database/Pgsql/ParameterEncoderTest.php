<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Pgsql;

use Petrel\Database\DatabaseConfig;
use Petrel\Database\DatabaseError;
use Petrel\Database\Pgsql\Bytea;
use Petrel\Database\Pgsql\Internal\ConnInfo;
use Petrel\Database\Pgsql\Internal\ParameterEncoder;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

#[CoversClass(ParameterEncoder::class)]
#[CoversClass(ConnInfo::class)]
final class ParameterEncoderTest extends TestCase
{
    public function testScalars(): void
    {
        self::assertNull(ParameterEncoder::encode(null, 0));
        self::assertSame('t', ParameterEncoder::encode(true, 0));
        self::assertSame('f', ParameterEncoder::encode(false, 0));
        self::assertSame('-42', ParameterEncoder::encode(-42, 0));
        self::assertSame('héllo', ParameterEncoder::encode('héllo', 0));
    }

    public function testFloatsKeepEveryDigit(): void
    {
        self::assertSame('0.30000000000000004', ParameterEncoder::encode(0.1 + 0.2, 0));
        self::assertSame('1.5', ParameterEncoder::encode(1.5, 0));
        self::assertSame('1.0E+100', ParameterEncoder::encode(1e100, 0));
        self::assertSame('NaN', ParameterEncoder::encode(\NAN, 0));
        self::assertSame('Infinity', ParameterEncoder::encode(\INF, 0));
        self::assertSame('-Infinity', ParameterEncoder::encode(-\INF, 0));
    }

    public function testObjects(): void
    {
        $date = new \DateTimeImmutable('2024-02-29 13:14:15.123456', new \DateTimeZone('+02:00'));
        self::assertSame('2024-02-29 13:14:15.123456+02:00', ParameterEncoder::encode($date, 0));
        self::assertSame('hearts', ParameterEncoder::encode(PgsqlSuit::Hearts, 0));
        self::assertSame('\x00ff41', ParameterEncoder::encode(new Bytea("\x00\xffA"), 0));
        $stringable = new class () {
            public function __toString(): string
            {
                return 'str';
            }
        };
        self::assertSame('str', ParameterEncoder::encode($stringable, 0));
    }

    public function testNulByteInTextIsAnError(): void
    {
        $this->expectException(DatabaseError::class);
        $this->expectExceptionMessage('Parameter #2 contains a NUL byte');
        ParameterEncoder::encode("a\0b", 1);
    }

    public function testUnsupportedType(): void
    {
        $this->expectException(DatabaseError::class);
        $this->expectExceptionMessage('Parameter :ids is a array');
        ParameterEncoder::encode([1, 2], 'ids');
    }

    public function testConnInfoQuotesEveryValue(): void
    {
        $config = new DatabaseConfig('pgsql', host: 'db.local', user: "o'brien", password: "p\\a' host=evil", database: 'app', options: ['sslmode' => 'require', 'bogus' => 'x', 'target_session_attrs' => 'read-write']);
        self::assertSame(
            "host='db.local' port='5432' user='o\\'brien' password='p\\\\a\\' host=evil' dbname='app' sslmode='require' "
            . "connect_timeout='10' application_name='petrel' client_encoding='UTF8' target_session_attrs='read-write'",
            ConnInfo::build($config),
        );
    }

    public function testConnInfoDefaultsAndSockets(): void
    {
        $config = DatabaseConfig::fromUrl('pgsql://u@127.0.0.1:6543/db?connect_timeout=2.5&application_name=shop');
        self::assertStringContainsString("port='6543'", ConnInfo::build($config));
        self::assertStringContainsString("sslmode='prefer'", ConnInfo::build($config));
        self::assertStringContainsString("connect_timeout='3'", ConnInfo::build($config));
        self::assertStringContainsString("application_name='shop'", ConnInfo::build($config));
        self::assertStringNotContainsString('password', ConnInfo::build($config));
        self::assertSame(2.5, ConnInfo::connectTimeout($config));
        self::assertSame(1000, ConnInfo::checkIntervalMs($config));
        self::assertSame(['/run/postgresql', 5432], ConnInfo::address(new DatabaseConfig('pgsql', socket: '/run/postgresql/')));
        self::assertSame(['/tmp', 5433], ConnInfo::address(new DatabaseConfig('pgsql', socket: '/tmp/.s.PGSQL.5433')));
        self::assertSame(['localhost', 5432], ConnInfo::address(new DatabaseConfig('pgsql')));
    }
}
