<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Mysql;

use Petrel\Database\Mysql\Internal\BinaryRowDecoder;
use Petrel\Database\Mysql\Internal\Capability;
use Petrel\Database\Mysql\Internal\ColumnDefinition;
use Petrel\Database\Mysql\Internal\ColumnFlag as F;
use Petrel\Database\Mysql\Internal\ColumnType as T;
use Petrel\Database\Mysql\Internal\ResultDecoder;
use Petrel\Database\Mysql\Internal\TemporalFormat;
use Petrel\Database\Mysql\ProtocolException;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(ResultDecoder::class)]
#[CoversClass(BinaryRowDecoder::class)]
#[CoversClass(TemporalFormat::class)]
final class BinaryResultTest extends TestCase
{
    /**
     * A binary row: 0x00, NULL bitmap with bit (i + 2) for column i, the non-NULL values.
     *
     * @param list<string|null> $values encoded values, null for NULL
     */
    public static function binaryRow(array $values): string
    {
        $bitmap = array_fill(0, (\count($values) + 9) >> 3, 0);
        $data = '';
        foreach ($values as $i => $value) {
            if ($value === null) {
                $bitmap[($i + 2) >> 3] |= 1 << (($i + 2) & 7);
            } else {
                $data .= $value;
            }
        }

        return "\x00" . pack('C*', ...$bitmap) . $data;
    }

    private static function datetime(int $y, int $mo, int $d, int $h = -1, int $mi = 0, int $s = 0, int $us = -1): string
    {
        if ($h < 0) {
            return "\x04" . pack('vCC', $y, $mo, $d);
        }
        if ($us < 0) {
            return "\x07" . pack('vCCCCC', $y, $mo, $d, $h, $mi, $s);
        }

        return "\x0B" . pack('vCCCCCV', $y, $mo, $d, $h, $mi, $s, $us);
    }

    private static function time(bool $negative, int $days, int $h, int $m, int $s, int $us = -1): string
    {
        $fields = pack('CVCCC', $negative ? 1 : 0, $days, $h, $m, $s);

        return $us < 0 ? "\x08" . $fields : "\x0C" . $fields . pack('V', $us);
    }

    /** @return list<array{string, int, int, int, string|null, mixed}> name, type, flags, decimals, encoded, expected */
    private static function spec(): array
    {
        $long = str_repeat('L', 300);

        return [
            ['tiny', T::TINY, 0, 0, "\x80", -128],
            ['utiny', T::TINY, F::UNSIGNED, 0, "\xFF", 255],
            ['short', T::SHORT, 0, 0, "\x00\x80", -32768],
            ['ushort', T::SHORT, F::UNSIGNED, 0, "\xFF\xFF", 65535],
            ['year', T::YEAR, F::UNSIGNED | F::ZEROFILL, 0, pack('v', 2024), 2024],
            ['int24', T::INT24, 0, 0, pack('V', -8388608 & 0xFFFFFFFF), -8388608],
            ['long', T::LONG, 0, 0, "\x00\x00\x00\x80", -2147483648],
            ['ulong', T::LONG, F::UNSIGNED, 0, "\xFF\xFF\xFF\xFF", 4294967295],
            ['null1', T::LONG, 0, 0, null, null],
            ['bigint', T::LONGLONG, 0, 0, pack('P', PHP_INT_MIN), PHP_INT_MIN],
            ['ubig', T::LONGLONG, F::UNSIGNED, 0, str_repeat("\xFF", 8), '18446744073709551615'],
            ['ubig_fits', T::LONGLONG, F::UNSIGNED, 0, pack('P', PHP_INT_MAX), PHP_INT_MAX],
            ['float', T::FLOAT, 0, 31, pack('g', 1.1), 1.1],
            ['float_small', T::FLOAT, 0, 31, pack('g', 1.234567e-7), 1.23457e-7],
            ['float_fixed', T::FLOAT, 0, 3, pack('g', 12.3456), 12.346],
            ['double', T::DOUBLE, 0, 31, pack('e', M_PI), M_PI],
            ['decimal', T::NEWDECIMAL, 0, 6, Wire::str('-12345678901234.123456'), '-12345678901234.123456'],
            ['bit', T::BIT, F::UNSIGNED, 0, Wire::str("\x02\xAA"), 0x02AA],
            ['bit_zero', T::BIT, F::UNSIGNED, 0, Wire::str("\x00"), 0],
            ['bit64_max', T::BIT, F::UNSIGNED, 0, Wire::str(\str_repeat("\xFF", 8)), '18446744073709551615'],
            ['bit64_top', T::BIT, F::UNSIGNED, 0, Wire::str("\x80" . \str_repeat("\x00", 7)), '9223372036854775808'],
            ['null2', T::VAR_STRING, 0, 0, null, null],
            ['date', T::DATE, 0, 0, self::datetime(2024, 2, 29), '2024-02-29'],
            ['zero_date', T::DATE, 0, 0, "\x00", '0000-00-00'],
            ['zero_datetime', T::DATETIME, 0, 0, "\x00", '0000-00-00 00:00:00'],
            ['midnight', T::DATETIME, 0, 0, self::datetime(2024, 2, 29), '2024-02-29 00:00:00'],
            ['datetime', T::DATETIME, 0, 0, self::datetime(2024, 2, 29, 13, 14, 15), '2024-02-29 13:14:15'],
            ['datetime3', T::DATETIME, 0, 3, self::datetime(2024, 2, 29, 13, 14, 15, 123000), '2024-02-29 13:14:15.123'],
            ['datetime6', T::DATETIME, 0, 6, self::datetime(1999, 12, 31, 23, 59, 59, 5), '1999-12-31 23:59:59.000005'],
            ['datetime6_whole', T::DATETIME, 0, 6, self::datetime(2000, 1, 1, 0, 0, 0), '2000-01-01 00:00:00.000000'],
            ['timestamp2', T::TIMESTAMP, 0, 2, self::datetime(2024, 2, 29, 13, 14, 15, 120000), '2024-02-29 13:14:15.12'],
            ['zero_time', T::TIME, 0, 0, "\x00", '00:00:00'],
            ['time_min', T::TIME, 0, 0, self::time(true, 34, 22, 59, 59), '-838:59:59'],
            ['time6', T::TIME, 0, 6, self::time(false, 0, 12, 34, 56, 789012), '12:34:56.789012'],
            ['time1_neg', T::TIME, 0, 1, self::time(true, 0, 0, 0, 1, 500000), '-00:00:01.5'],
            ['varchar', T::VAR_STRING, 0, 0, Wire::str('héllo'), 'héllo'],
            ['long_text', T::BLOB, F::BLOB, 0, Wire::str($long), $long],
            ['json', T::JSON, 0, 0, Wire::str('[]'), '[]'],
            ['null3', T::DATETIME, 0, 0, null, null],
        ];
    }

    /** @return iterable<string, array{bool, bool}> */
    public static function modes(): iterable
    {
        return TextResultTest::modes();
    }

    #[DataProvider('modes')]
    public function testEveryColumnType(bool $deprecateEof, bool $byteByByte): void
    {
        $columns = [];
        $values = [];
        $expected = [];
        foreach (self::spec() as [$name, $type, $flags, $decimals, $encoded, $php]) {
            $columns[] = Wire::column($name, $type, $flags, 63, $decimals);
            $values[] = $encoded;
            $expected[$name] = $php;
        }
        $bytes = TextResultTest::resultSet($columns, [self::binaryRow($values)], $deprecateEof);
        $caps = Capability::PROTOCOL_41 | ($deprecateEof ? Capability::DEPRECATE_EOF : 0);

        $trace = Wire::decodeAll($bytes, $caps, true, $byteByByte);
        self::assertSame(['columns', array_keys($expected)], $trace[0]);
        self::assertSame('row', $trace[1][0]);
        self::assertSame($expected, $trace[1][1]);
        self::assertSame([['end', 2, 0], ['complete', true, 0]], \array_slice($trace, 2));
    }

    public function testNullBitmapOffsetAcrossBytes(): void
    {
        // 14 columns: bitmap of 2 bytes; column i is bit i + 2.
        $columns = [];
        for ($i = 0; $i < 14; ++$i) {
            $columns[] = new ColumnDefinition('def', '', '', '', "c$i", "c$i", 63, 1, T::TINY, 0, 0);
        }
        $decoder = new BinaryRowDecoder($columns);
        $values = [];
        $expected = [];
        for ($i = 0; $i < 14; ++$i) {
            $isNull = $i % 3 === 0 || $i === 13;
            $values[] = $isNull ? null : \chr($i);
            $expected["c$i"] = $isNull ? null : $i;
        }
        $row = self::binaryRow($values);
        // NULL: c0, c3 (bits 2, 5 of byte 0); c6, c9, c12, c13 (bits 8, 11, 14, 15 = byte 1 bits 0, 3, 6, 7).
        self::assertSame("\x00\x24\xC9", substr($row, 0, 3));
        self::assertSame($expected, $decoder->decode($row));
    }

    /** @return iterable<string, array{string, bool}> */
    public static function captures(): iterable
    {
        yield 'MariaDB 10.11, DEPRECATE_EOF' => [MariaDbCapture::EXECUTE_DEPRECATE_EOF, true];
        yield 'MariaDB 10.11, EOF packets' => [MariaDbCapture::EXECUTE_WITH_EOF, false];
    }

    #[DataProvider('captures')]
    public function testCapturedMariaDbResultMatchesTheTextProtocol(string $hex, bool $deprecateEof): void
    {
        $caps = Capability::PROTOCOL_41 | ($deprecateEof ? Capability::DEPRECATE_EOF : 0);
        $textHex = $deprecateEof ? MariaDbCapture::TEXT_DEPRECATE_EOF : MariaDbCapture::TEXT_WITH_EOF;
        foreach ([false, true] as $byteByByte) {
            $binary = Wire::decodeAll((string) hex2bin($hex), $caps, true, $byteByByte);
            self::assertSame(Wire::decodeAll((string) hex2bin($textHex), $caps), $binary);
            self::assertSame(
                ['row', ['id' => 1, 'ubi' => '18446744073709551615', 'vc' => 'q', 'dtm3' => '2024-02-29 13:14:15.123', 'f' => 1.1]],
                $binary[1],
            );
        }
    }

    /** @return iterable<string, array{string}> */
    public static function malformedRows(): iterable
    {
        yield 'wrong header' => ["\x01\x00\x01\x00\x00\x00"];
        yield 'missing bitmap' => ["\x00"];
        yield 'truncated int' => ["\x00\x00\x01\x00"];
        yield 'truncated string' => ["\x00\x00\x01\x00\x00\x00\x05ab"];
        yield 'invalid date length' => ["\x00\x00\x01\x00\x00\x00\x01x\x05\x01\x02\x03\x04\x05"];
        yield 'trailing bytes' => ["\x00\x00\x01\x00\x00\x00\x01x\x00!"];
    }

    #[DataProvider('malformedRows')]
    public function testMalformedRowsAreProtocolErrors(string $row): void
    {
        $decoder = new BinaryRowDecoder([
            new ColumnDefinition('def', '', '', '', 'i', 'i', 63, 11, T::LONG, 0, 0),
            new ColumnDefinition('def', '', '', '', 's', 's', 45, 10, T::VAR_STRING, 0, 0),
            new ColumnDefinition('def', '', '', '', 'd', 'd', 63, 10, T::DATETIME, 0, 0),
        ]);
        $this->expectException(ProtocolException::class);
        $decoder->decode($row);
    }

    private static function float32(float $value): float
    {
        $unpacked = unpack('g', pack('g', $value));
        self::assertIsArray($unpacked);
        self::assertIsFloat($unpacked[1]);

        return $unpacked[1];
    }

    public function testFloatWidening(): void
    {
        self::assertSame(1.1, BinaryRowDecoder::float32(self::float32(1.1), 31));
        self::assertSame(-3.40282e38, BinaryRowDecoder::float32(self::float32(-3.4028234e38), 31));
        self::assertSame(0.5, BinaryRowDecoder::float32(0.5, 0 + 1));
        self::assertNan(BinaryRowDecoder::float32(NAN, 31));
    }
}
