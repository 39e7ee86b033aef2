<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Petrel\Database\DatabaseError;
use Petrel\Database\Pgsql\Bytea;

/**
 * Turns a bound PHP value into the text libpq sends (parameters always travel apart from
 * the SQL, never interpolated): null → NULL; bool → 't'/'f'; int → decimal; float →
 * shortest exact form ('NaN', 'Infinity', '-Infinity' included); string as is (a NUL byte
 * is an error: PostgreSQL text cannot hold one, and libpq would silently cut the value
 * there); Bytea → hex bytea input ('\x…'); DateTimeInterface → 'Y-m-d H:i:s.uP' (with its
 * UTC offset, so timestamptz keeps the instant; timestamp and date ignore the offset);
 * BackedEnum → its value; Stringable → its string.
 *
 * @internal
 */
final class ParameterEncoder
{
    public static function encode(mixed $value, int|string $position): ?string
    {
        return match (true) {
            \is_string($value) => \str_contains($value, "\0") ? throw self::nulByte($position) : $value,
            \is_int($value) => (string) $value,
            $value === null => null,
            \is_bool($value) => $value ? 't' : 'f',
            \is_float($value) => self::float($value),
            $value instanceof Bytea => '\\x' . \bin2hex($value->bytes),
            $value instanceof \DateTimeInterface => $value->format('Y-m-d H:i:s.uP'),
            $value instanceof \BackedEnum => self::encode($value->value, $position),
            $value instanceof \Stringable => self::encode((string) $value, $position),
            default => throw new DatabaseError(\sprintf(
                'Parameter %s is a %s; bind null, bool, int, float, string, Bytea, Stringable, DateTimeInterface or a BackedEnum',
                self::describe($position),
                \get_debug_type($value),
            )),
        };
    }

    private static function float(float $value): string
    {
        if (\is_nan($value)) {
            return 'NaN';
        }
        if (\is_infinite($value)) {
            return $value > 0 ? 'Infinity' : '-Infinity';
        }

        return \var_export($value, true); // shortest round-trip form (serialize_precision -1)
    }

    private static function nulByte(int|string $position): DatabaseError
    {
        return new DatabaseError(
            'Parameter ' . self::describe($position) . ' contains a NUL byte, which PostgreSQL text cannot hold; '
            . 'for a bytea column bind new Petrel\Database\Pgsql\Bytea($bytes)',
        );
    }

    private static function describe(int|string $position): string
    {
        return \is_int($position) ? '#' . ($position + 1) : ":{$position}";
    }
}
