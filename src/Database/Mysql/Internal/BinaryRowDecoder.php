<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\Mysql\ProtocolException;

/**
 * Decodes binary-protocol rows (COM_STMT_EXECUTE results) into associative arrays holding
 * the same PHP values as TextRowDecoder gives for the same data.
 *
 * A row is 0x00, a NULL bitmap of (columns + 7 + 2) / 8 bytes (the first two bits unused),
 * then the non-NULL values: little-endian integers of 1, 2, 4 or 8 bytes by type (INT24 and
 * LONG take 4, YEAR 2), IEEE floats of 4 or 8 bytes, temporal values as a length byte
 * (0/4/7/11 for dates, 0/8/12 for TIME) and fields, everything else length-encoded strings.
 * Temporal values come back as strings formatted as the text protocol has them
 * ('Y-m-d', 'Y-m-d H:i:s[.ffffff]', '[-]HH:MM:SS[.ffffff]'); BIT (big-endian bytes in both
 * protocols) as an int, see BitValue.
 */
final class BinaryRowDecoder implements RowDecoder
{
    private const STRING = 0;
    private const INT64 = 1;
    private const UINT64 = 2;
    private const INT32 = 3;
    private const UINT32 = 4;
    private const INT16 = 5;
    private const UINT16 = 6;
    private const INT8 = 7;
    private const UINT8 = 8;
    private const DOUBLE = 9;
    private const FLOAT = 10;
    private const DATE = 11;
    private const DATETIME = 12;
    private const TIME = 13;
    private const BIT = 14;

    /** @var list<string> */
    private readonly array $names;
    /** @var list<int> */
    private readonly array $kinds;
    /** @var list<int> */
    private readonly array $decimals;
    /** @var list<int> byte offset, within the payload, of each column's NULL bit */
    private readonly array $nullByte;
    /** @var list<int> */
    private readonly array $nullMask;
    private readonly int $valuesOffset;
    /** The NULL bitmap of a row without NULLs: all zero bytes. */
    private readonly string $noNulls;

    /** @param list<ColumnDefinition> $columns */
    public function __construct(array $columns)
    {
        $names = $kinds = $decimals = $nullByte = $nullMask = [];
        foreach ($columns as $i => $column) {
            $names[] = $column->name;
            $decimals[] = $column->decimals;
            $nullByte[] = 1 + (($i + 2) >> 3);
            $nullMask[] = 1 << (($i + 2) & 7);
            $unsigned = $column->isUnsigned();
            $kinds[] = match ($column->type) {
                ColumnType::LONGLONG => $unsigned ? self::UINT64 : self::INT64,
                ColumnType::LONG, ColumnType::INT24 => $unsigned ? self::UINT32 : self::INT32,
                ColumnType::SHORT => $unsigned ? self::UINT16 : self::INT16,
                ColumnType::YEAR => self::UINT16,
                ColumnType::TINY => $unsigned ? self::UINT8 : self::INT8,
                ColumnType::DOUBLE => self::DOUBLE,
                ColumnType::FLOAT => self::FLOAT,
                ColumnType::DATE, ColumnType::NEWDATE => self::DATE,
                ColumnType::DATETIME, ColumnType::TIMESTAMP, ColumnType::DATETIME2,
                ColumnType::TIMESTAMP2 => self::DATETIME,
                ColumnType::TIME, ColumnType::TIME2 => self::TIME,
                ColumnType::BIT => self::BIT,
                default => self::STRING,
            };
        }
        $this->names = $names;
        $this->kinds = $kinds;
        $this->decimals = $decimals;
        $this->nullByte = $nullByte;
        $this->nullMask = $nullMask;
        $this->valuesOffset = 1 + ((\count($columns) + 9) >> 3);
        $this->noNulls = str_repeat("\0", $this->valuesOffset - 1);
    }

    public function decode(string $payload): array
    {
        return $this->decodeAt($payload, 0, \strlen($payload));
    }

    /**
     * Hot loop, kept in one method on purpose: one call per row; only temporal values and
     * long strings call out. $payload is the read buffer, the row at [$start, $end).
     */
    public function decodeAt(string $payload, int $start, int $end): array
    {
        $o = $start + $this->valuesOffset;
        if ($o > $end || $payload[$start] !== "\x00") {
            throw new ProtocolException('Malformed binary row header');
        }
        $names = $this->names;
        // Most rows have no NULL: one comparison then, instead of a bit test per column.
        $nulls = substr_compare($payload, $this->noNulls, $start + 1, $this->valuesOffset - 1) !== 0;
        $nullByte = $this->nullByte;
        $nullMask = $this->nullMask;
        $row = [];
        foreach ($this->kinds as $i => $kind) {
            if ($nulls && (\ord($payload[$start + $nullByte[$i]]) & $nullMask[$i]) !== 0) {
                $row[$names[$i]] = null;
                continue;
            }
            if ($o >= $end) {
                throw new ProtocolException('Truncated binary row');
            }
            switch ($kind) {
                case self::STRING:
                case self::BIT:
                    $length = \ord($payload[$o]);
                    if ($length < 0xFB) {
                        ++$o;
                    } else {
                        $reader = new PayloadReader(substr($payload, $o, min(9, $end - $o))); // up to 9 bytes
                        $length = $reader->lenencLength();
                        $o += $reader->offset();
                    }
                    $value = (string) substr($payload, $o, $length);
                    $row[$names[$i]] = $kind === self::STRING ? $value : BitValue::decode($value);
                    $o += $length;
                    break;
                case self::INT64:
                case self::UINT64:
                    if ($o + 8 > $end) {
                        throw new ProtocolException('Truncated binary row');
                    }
                    /** @var array{1: int} $v */
                    $v = unpack('P', $payload, $o);
                    $o += 8;
                    $row[$names[$i]] = ($v[1] < 0 && $kind === self::UINT64) ? \sprintf('%u', $v[1]) : $v[1];
                    break;
                case self::INT32:
                case self::UINT32:
                    if ($o + 4 > $end) {
                        throw new ProtocolException('Truncated binary row');
                    }
                    $v = \ord($payload[$o]) | (\ord($payload[$o + 1]) << 8) | (\ord($payload[$o + 2]) << 16)
                        | (\ord($payload[$o + 3]) << 24);
                    $o += 4;
                    $row[$names[$i]] = ($kind === self::INT32 && $v > 0x7FFFFFFF) ? $v - 0x100000000 : $v;
                    break;
                case self::INT16:
                case self::UINT16:
                    if ($o + 2 > $end) {
                        throw new ProtocolException('Truncated binary row');
                    }
                    $v = \ord($payload[$o]) | (\ord($payload[$o + 1]) << 8);
                    $o += 2;
                    $row[$names[$i]] = ($kind === self::INT16 && $v > 0x7FFF) ? $v - 0x10000 : $v;
                    break;
                case self::INT8:
                    $v = \ord($payload[$o++]);
                    $row[$names[$i]] = $v > 0x7F ? $v - 0x100 : $v;
                    break;
                case self::UINT8:
                    $row[$names[$i]] = \ord($payload[$o++]);
                    break;
                case self::DOUBLE:
                    if ($o + 8 > $end) {
                        throw new ProtocolException('Truncated binary row');
                    }
                    /** @var array{1: float} $f */
                    $f = unpack('e', $payload, $o);
                    $o += 8;
                    $row[$names[$i]] = $f[1];
                    break;
                case self::FLOAT:
                    if ($o + 4 > $end) {
                        throw new ProtocolException('Truncated binary row');
                    }
                    /** @var array{1: float} $f */
                    $f = unpack('g', $payload, $o);
                    $o += 4;
                    $row[$names[$i]] = self::float32($f[1], $this->decimals[$i]);
                    break;
                default:
                    $which = $kind - self::DATE;
                    $row[$names[$i]] = TemporalFormat::binary($payload, $o, $end, $which, $this->decimals[$i]);
            }
        }
        if ($o !== $end) {
            throw new ProtocolException('Malformed binary row: values do not match the packet length');
        }

        return $row;
    }

    /**
     * A 4-byte FLOAT widened to a PHP float without the binary noise (1.1f would read back as
     * 1.100000023841858): rounded to the column's decimals when fixed, else to 6 significant
     * digits (FLT_DIG), which is also how the server prints FLOAT in the text protocol.
     */
    public static function float32(float $value, int $decimals): float
    {
        if ($decimals < 31) {
            return round($value, $decimals);
        }
        if (is_nan($value) || is_infinite($value)) {
            return $value;
        }

        return (float) \sprintf('%.6G', $value);
    }
}
