<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Mysql;

use Petrel\Database\Mysql\Internal\Capability;
use Petrel\Database\Mysql\Internal\ColumnFlag as F;
use Petrel\Database\Mysql\Internal\ColumnType as T;
use Petrel\Database\Mysql\Internal\ResultDecoder;
use Petrel\Database\Mysql\Internal\TextRowDecoder;
use Petrel\Database\Mysql\ProtocolException;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(ResultDecoder::class)]
#[CoversClass(TextRowDecoder::class)]
final class TextResultTest extends TestCase
{
    /** @return iterable<string, array{bool, bool}> */
    public static function modes(): iterable
    {
        foreach ([true, false] as $deprecateEof) {
            foreach ([false, true] as $byteByByte) {
                $name = ($deprecateEof ? 'DEPRECATE_EOF' : 'EOF packets') . ($byteByByte ? ', byte by byte' : ', whole');
                yield $name => [$deprecateEof, $byteByByte];
            }
        }
    }

    private static function caps(bool $deprecateEof): int
    {
        return Capability::PROTOCOL_41 | ($deprecateEof ? Capability::DEPRECATE_EOF : 0);
    }

    /**
     * Frames column definitions and rows as a result set.
     *
     * @param list<string> $columns
     * @param list<string> $rows
     */
    public static function resultSet(array $columns, array $rows, bool $deprecateEof, int $status = 0x0002): string
    {
        $payloads = [Wire::lenencInt(\count($columns)), ...$columns];
        if (!$deprecateEof) {
            $payloads[] = Wire::eof();
        }
        array_push($payloads, ...$rows);
        $payloads[] = $deprecateEof ? Wire::ok(status: $status, header: "\xFE") : Wire::eof($status);

        return Wire::packets($payloads);
    }

    #[DataProvider('modes')]
    public function testEveryColumnType(bool $deprecateEof, bool $byteByByte): void
    {
        $long = str_repeat('L', 300);
        $huge = str_repeat('H', 70000);
        $spec = [
            // name, type, flags, text value, expected PHP value
            ['tiny', T::TINY, 0, '-128', -128],
            ['utiny', T::TINY, F::UNSIGNED, '255', 255],
            ['short', T::SHORT, 0, '-32768', -32768],
            ['int24', T::INT24, 0, '-8388608', -8388608],
            ['long', T::LONG, 0, '-2147483648', -2147483648],
            ['ulong', T::LONG, F::UNSIGNED, '4294967295', 4294967295],
            ['bigint', T::LONGLONG, 0, '-9223372036854775808', PHP_INT_MIN],
            ['ubig', T::LONGLONG, F::UNSIGNED, '18446744073709551615', '18446744073709551615'],
            ['ubig_fits', T::LONGLONG, F::UNSIGNED, '9223372036854775807', PHP_INT_MAX],
            ['ubig_over', T::LONGLONG, F::UNSIGNED, '9223372036854775808', '9223372036854775808'],
            ['ubig_zerofill', T::LONGLONG, F::UNSIGNED | F::ZEROFILL, '00000000000000000042', 42],
            ['year', T::YEAR, F::UNSIGNED | F::ZEROFILL, '2024', 2024],
            ['float', T::FLOAT, 0, '1.1', 1.1],
            ['double', T::DOUBLE, 0, '3.141592653589793', 3.141592653589793],
            ['double_exp', T::DOUBLE, 0, '-1.5e-300', -1.5e-300],
            ['decimal', T::NEWDECIMAL, 0, '-12345678901234.123456', '-12345678901234.123456'],
            ['old_decimal', T::DECIMAL, 0, '0.10', '0.10'],
            ['bit', T::BIT, F::UNSIGNED, "\x02\xAA", 0x02AA],
            ['bit_zero', T::BIT, F::UNSIGNED, "\x00", 0],
            ['bit64_max', T::BIT, F::UNSIGNED, \str_repeat("\xFF", 8), '18446744073709551615'],
            ['bit64_fits', T::BIT, F::UNSIGNED, "\x7F" . \str_repeat("\xFF", 7), PHP_INT_MAX],
            ['date', T::DATE, 0, '2024-02-29', '2024-02-29'],
            ['datetime', T::DATETIME, 0, '2024-02-29 13:14:15.123', '2024-02-29 13:14:15.123'],
            ['timestamp', T::TIMESTAMP, 0, '0000-00-00 00:00:00', '0000-00-00 00:00:00'],
            ['time', T::TIME, 0, '-838:59:59', '-838:59:59'],
            ['varchar', T::VAR_STRING, 0, 'héllo', 'héllo'],
            ['char', T::STRING, 0, '', ''],
            ['blob', T::BLOB, F::BINARY | F::BLOB, "\x00\xFF\xFB", "\x00\xFF\xFB"],
            ['json', T::JSON, 0, '{"a": 1}', '{"a": 1}'],
            ['enum', T::STRING, F::ENUM, 'b', 'b'],
            ['long_text', T::BLOB, F::BLOB, $long, $long],
            ['huge_text', T::BLOB, F::BLOB, $huge, $huge],
            ['null_int', T::LONG, 0, null, null],
            ['null_text', T::VAR_STRING, 0, null, null],
        ];
        $columns = [];
        $values = [];
        $expected = [];
        foreach ($spec as [$name, $type, $flags, $text, $php]) {
            $columns[] = Wire::column($name, $type, $flags);
            $values[] = $text;
            $expected[$name] = $php;
        }
        $bytes = self::resultSet($columns, [Wire::textRow($values)], $deprecateEof, 0x0022);

        $trace = Wire::decodeAll($bytes, self::caps($deprecateEof), false, $byteByByte);
        self::assertSame([
            ['columns', array_keys($expected)],
            ['row', $expected],
            ['end', 0x0022, 0],
            ['complete', true, 0],
        ], $trace);
    }

    #[DataProvider('modes')]
    public function testManyRowsNullsAndDuplicateNames(bool $deprecateEof, bool $byteByByte): void
    {
        $columns = [Wire::column('id', T::LONG), Wire::column('dup', T::VAR_STRING), Wire::column('dup', T::LONG)];
        $rows = [
            Wire::textRow(['1', 'first', '10']),
            Wire::textRow(['2', 'second', null]),
            Wire::textRow([null, null, null]),
        ];
        $trace = Wire::decodeAll(self::resultSet($columns, $rows, $deprecateEof), self::caps($deprecateEof), false, $byteByByte);
        self::assertSame([
            ['columns', ['id', 'dup', 'dup']],
            ['row', ['id' => 1, 'dup' => 10]],
            ['row', ['id' => 2, 'dup' => null]],
            ['row', ['id' => null, 'dup' => null]],
            ['end', 2, 0],
            ['complete', true, 0],
        ], $trace);
    }

    #[DataProvider('modes')]
    public function testEmptyResultSet(bool $deprecateEof, bool $byteByByte): void
    {
        $bytes = self::resultSet([Wire::column('x', T::LONG)], [], $deprecateEof);
        self::assertSame(
            [['columns', ['x']], ['end', 2, 0], ['complete', true, 0]],
            Wire::decodeAll($bytes, self::caps($deprecateEof), false, $byteByByte),
        );
    }

    /** @return iterable<string, array{string, bool}> */
    public static function captures(): iterable
    {
        yield 'MariaDB 10.11, DEPRECATE_EOF' => [MariaDbCapture::TEXT_DEPRECATE_EOF, true];
        yield 'MariaDB 10.11, EOF packets' => [MariaDbCapture::TEXT_WITH_EOF, false];
    }

    #[DataProvider('captures')]
    public function testCapturedMariaDbResult(string $hex, bool $deprecateEof): void
    {
        foreach ([false, true] as $byteByByte) {
            $trace = Wire::decodeAll((string) hex2bin($hex), self::caps($deprecateEof), false, $byteByByte);
            self::assertSame([
                ['columns', ['id', 'ubi', 'vc', 'dtm3', 'f']],
                ['row', ['id' => 1, 'ubi' => '18446744073709551615', 'vc' => 'q', 'dtm3' => '2024-02-29 13:14:15.123', 'f' => 1.1]],
                ['row', ['id' => 2, 'ubi' => null, 'vc' => 'z', 'dtm3' => null, 'f' => null]],
                ['end', 0x0002, 0],
                ['complete', true, 0],
            ], $trace);
        }
    }

    public function testMalformedRowIsAProtocolError(): void
    {
        $decoder = new TextRowDecoder([]);
        self::assertSame([], $decoder->decode(''));
        $this->expectException(ProtocolException::class);
        $decoder->decode("\x01a");
    }

    public function testTruncatedRowIsAProtocolError(): void
    {
        $bytes = self::resultSet([Wire::column('a', T::VAR_STRING), Wire::column('b', T::VAR_STRING)], ["\x01a\x05ab"], true);
        $this->expectException(ProtocolException::class);
        Wire::decodeAll($bytes, self::caps(true));
    }

    public function testUnsignedBigintHelper(): void
    {
        self::assertSame(0, TextRowDecoder::unsignedBigint('0000000000000000000'));
        self::assertSame(PHP_INT_MAX, TextRowDecoder::unsignedBigint('09223372036854775807'));
        self::assertSame('9223372036854775808', TextRowDecoder::unsignedBigint('09223372036854775808'));
    }
}
