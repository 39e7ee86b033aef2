<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\Mysql\ProtocolException;

/**
 * Decodes text-protocol rows (COM_QUERY results) into associative arrays.
 *
 * Each value is a length-encoded string, or 0xFB for NULL. Integer types (TINY, SHORT,
 * INT24, LONG, LONGLONG, YEAR) and BIT become int, except BIGINT UNSIGNED and BIT(64)
 * values above PHP_INT_MAX which stay decimal strings; FLOAT and DOUBLE become float;
 * everything else (DECIMAL exactly, temporal types as the server formats them, text,
 * binary) stays a string. With duplicate column names the last value wins, as with
 * PDO::FETCH_ASSOC.
 */
final class TextRowDecoder implements RowDecoder
{
    private const STRING = 0;
    private const INT = 1;
    private const FLOAT = 2;
    private const UNSIGNED_BIGINT = 3;
    private const BIT = 4;

    /** @var list<string> */
    private readonly array $names;
    /** @var list<int> */
    private readonly array $kinds;

    /** @param list<ColumnDefinition> $columns */
    public function __construct(array $columns)
    {
        $names = [];
        $kinds = [];
        foreach ($columns as $column) {
            $names[] = $column->name;
            $kinds[] = match ($column->type) {
                ColumnType::TINY, ColumnType::SHORT, ColumnType::INT24, ColumnType::LONG,
                ColumnType::YEAR => self::INT,
                ColumnType::LONGLONG => $column->isUnsigned() ? self::UNSIGNED_BIGINT : self::INT,
                ColumnType::FLOAT, ColumnType::DOUBLE => self::FLOAT,
                ColumnType::BIT => self::BIT,
                default => self::STRING,
            };
        }
        $this->names = $names;
        $this->kinds = $kinds;
    }

    public function decode(string $payload): array
    {
        return $this->decodeAt($payload, 0, \strlen($payload));
    }

    /**
     * Hot loop, kept in one method on purpose: one call per row, none per column (values
     * are cut straight out of the read buffer).
     */
    public function decodeAt(string $buffer, int $offset, int $end): array
    {
        $kinds = $this->kinds;
        $o = $offset;
        $row = [];
        foreach ($this->names as $i => $name) {
            if ($o >= $end) {
                throw new ProtocolException('Truncated text row');
            }
            $length = \ord($buffer[$o]);
            if ($length < 0xFB) {
                ++$o;
            } elseif ($length === 0xFB) {
                $row[$name] = null;
                ++$o;
                continue;
            } else {
                $reader = new PayloadReader(substr($buffer, $o, min(9, $end - $o))); // a length takes up to 9 bytes
                $length = $reader->lenencLength();
                $o += $reader->offset();
            }
            $kind = $kinds[$i];
            if ($kind === self::STRING) {
                $row[$name] = substr($buffer, $o, $length);
            } elseif ($kind === self::INT) {
                $row[$name] = (int) substr($buffer, $o, $length);
            } elseif ($kind === self::FLOAT) {
                $row[$name] = (float) substr($buffer, $o, $length);
            } elseif ($kind === self::BIT) {
                $row[$name] = BitValue::decode(substr($buffer, $o, $length));
            } else {
                $value = substr($buffer, $o, $length);
                $row[$name] = \strlen($value) < 19 ? (int) $value : self::unsignedBigint($value);
            }
            $o += $length;
        }
        if ($o !== $end) {
            throw new ProtocolException('Malformed text row: value lengths do not match the packet');
        }

        return $row;
    }

    /** BIGINT UNSIGNED text (possibly zero-filled): an int when it fits, else its digits. */
    public static function unsignedBigint(string $value): int|string
    {
        $digits = ltrim($value, '0');
        if (\strlen($digits) < 19 || (\strlen($digits) === 19 && strcmp($digits, '9223372036854775807') <= 0)) {
            return (int) $value;
        }

        return $digits;
    }
}
