<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Mysql;

use Petrel\Database\Mysql\Internal\Capability;
use Petrel\Database\Mysql\Internal\ColumnDefinition;
use Petrel\Database\Mysql\Internal\ColumnFlag;
use Petrel\Database\Mysql\Internal\ColumnType;
use Petrel\Database\Mysql\Internal\ErrPacket;
use Petrel\Database\Mysql\Internal\OkPacket;
use Petrel\Database\Mysql\Internal\Packet;
use Petrel\Database\Mysql\Internal\ServerStatus;
use Petrel\Database\Mysql\MysqlException;
use Petrel\Database\Mysql\ProtocolException;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

#[CoversClass(OkPacket::class)]
#[CoversClass(ErrPacket::class)]
#[CoversClass(Packet::class)]
#[CoversClass(ColumnDefinition::class)]
#[CoversClass(MysqlException::class)]
final class ResponsePacketTest extends TestCase
{
    private const CAPS = Capability::PROTOCOL_41 | Capability::TRANSACTIONS;

    public function testOkPacket(): void
    {
        $ok = OkPacket::parse("\x00\x01\x05\x03\x00\x02\x00", self::CAPS);
        self::assertSame(1, $ok->affectedRows);
        self::assertSame(5, $ok->lastInsertId);
        self::assertSame(ServerStatus::IN_TRANS | ServerStatus::AUTOCOMMIT, $ok->statusFlags);
        self::assertTrue($ok->inTransaction());
        self::assertFalse($ok->hasMoreResults());
        self::assertSame(2, $ok->warnings);
        self::assertSame('', $ok->info);
    }

    public function testOkPacketWithWideCountsAndUnsignedInsertId(): void
    {
        $payload = "\x00" . Wire::lenencInt(70000) . "\xFE" . str_repeat("\xFF", 8) . "\x0A\x02\x00\x00";
        $ok = OkPacket::parse($payload, self::CAPS);
        self::assertSame(70000, $ok->affectedRows);
        self::assertSame('18446744073709551615', $ok->lastInsertId);
        self::assertTrue($ok->hasMoreResults());
        self::assertTrue($ok->noBackslashEscapes());
    }

    public function testOkInfoAsServersSendIt(): void
    {
        // MariaDB 10.11 and MySQL length-prefix the info even without CLIENT_SESSION_TRACK.
        $info = 'Records: 3  Duplicates: 0  Warnings: 0';
        $ok = OkPacket::parse("\x00\x03\x01\x02\x00\x00\x00" . Wire::str($info), self::CAPS);
        self::assertSame($info, $ok->info);
        // As documented (string<EOF>), when the first byte is no matching length.
        $ok = OkPacket::parse("\x00\x03\x01\x02\x00\x00\x00" . $info, self::CAPS);
        self::assertSame($info, $ok->info);
    }

    public function testOkWithSessionTracking(): void
    {
        $caps = self::CAPS | Capability::SESSION_TRACK;
        $state = "\x01\x05\x04test";
        $ok = OkPacket::parse("\x00\x00\x00\x02\x40\x00\x00" . Wire::str('') . Wire::str($state), $caps);
        self::assertSame('', $ok->info);
        self::assertSame($state, $ok->sessionState);
    }

    public function testEofPacket(): void
    {
        $eof = OkPacket::parseEof(Wire::eof(0x0022, 3));
        self::assertSame(0x0022, $eof->statusFlags);
        self::assertSame(3, $eof->warnings);
        self::assertSame(0, $eof->affectedRows);
    }

    public function testErrPacket(): void
    {
        $err = ErrPacket::parse(Wire::err(1146, '42S02', "Table 'test.nope' doesn't exist"));
        self::assertSame(1146, $err->code);
        self::assertSame('42S02', $err->sqlState);
        self::assertSame("Table 'test.nope' doesn't exist", $err->message);

        $e = $err->toException();
        self::assertSame(1146, $e->getCode());
        self::assertSame(1146, $e->getErrorCode());
        self::assertSame('42S02', $e->getSqlState());
        self::assertSame("Table 'test.nope' doesn't exist", $e->getServerMessage());
        self::assertSame("MySQL error 1146 (42S02): Table 'test.nope' doesn't exist", $e->getMessage());
        self::assertNotInstanceOf(ProtocolException::class, $e);
    }

    public function testErrPacketWithoutSqlState(): void
    {
        $err = ErrPacket::parse("\xFF\x10\x04Too many connections");
        self::assertSame(1040, $err->code);
        self::assertSame('HY000', $err->sqlState);
        self::assertSame('Too many connections', $err->message);
    }

    public function testProtocolExceptionIsAMysqlException(): void
    {
        $e = new ProtocolException('bad');
        self::assertInstanceOf(MysqlException::class, $e);
        self::assertSame(MysqlException::CLIENT_MALFORMED_PACKET, $e->getCode());
        self::assertSame('08S01', $e->getSqlState());
    }

    public function testEndOfResultSetDetection(): void
    {
        self::assertTrue(Packet::isEnd(Wire::eof(), false));
        self::assertTrue(Packet::isEnd(Wire::ok(header: "\xFE"), true));
        self::assertFalse(Packet::isEnd(Wire::ok(), true));
        // A text row whose first value has an 8-byte length prefix also starts with 0xFE.
        self::assertFalse(Packet::isEnd("\xFE" . str_repeat("\x00", 8) . 'x', false));
        self::assertFalse(Packet::isEnd("\xFE" . str_repeat('x', 0xFFFFFF), true));
        self::assertFalse(Packet::isEnd('', true));
    }

    public function testColumnDefinitionCapturedFromMySql80(): void
    {
        // "SELECT user ... FROM mysql.user" as dissected in "Exploring the MySQL protocol".
        $payload = (string) hex2bin(
            '03646566' . '056d7973716c' . '0475736572' . '0475736572' . '0475736572' . '0455736572'
            . '0c' . 'e000' . '80000000' . 'fe' . '8340' . '00' . '0000',
        );
        $column = ColumnDefinition::parse($payload);
        self::assertSame('def', $column->catalog);
        self::assertSame('mysql', $column->schema);
        self::assertSame('user', $column->table);
        self::assertSame('user', $column->orgTable);
        self::assertSame('user', $column->name);
        self::assertSame('User', $column->orgName);
        self::assertSame(224, $column->charset);
        self::assertSame(128, $column->length);
        self::assertSame(ColumnType::STRING, $column->type);
        self::assertSame(ColumnFlag::NOT_NULL | ColumnFlag::PRIMARY_KEY | ColumnFlag::BINARY | 0x4000, $column->flags);
        self::assertSame(0, $column->decimals);
        self::assertFalse($column->isNullable());
        self::assertFalse($column->isUnsigned());
        self::assertFalse($column->isBinary());
    }

    public function testColumnDefinitionWithLongNamesTakesTheSlowPath(): void
    {
        $name = str_repeat('n', 300);
        $column = ColumnDefinition::parse(Wire::column($name, ColumnType::LONGLONG, ColumnFlag::UNSIGNED, 63, 0, 20));
        self::assertSame($name, $column->name);
        self::assertSame(ColumnType::LONGLONG, $column->type);
        self::assertTrue($column->isUnsigned());
        self::assertTrue($column->isBinary());
        self::assertSame(20, $column->length);
    }

    public function testTruncatedColumnDefinition(): void
    {
        $this->expectException(ProtocolException::class);
        ColumnDefinition::parse(substr(Wire::column('id', ColumnType::LONG), 0, -6));
    }
}
