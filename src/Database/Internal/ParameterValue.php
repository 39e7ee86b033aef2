<?php

declare(strict_types=1);

namespace Petrel\Database\Internal;

use Petrel\Database\DatabaseError;

/**
 * Normalises a bound parameter to what a driver can send: null, bool, int, float or string.
 *
 * @internal
 */
final class ParameterValue
{
    public static function normalize(mixed $value, int|string $position): null|bool|int|float|string
    {
        return match (true) {
            $value === null, \is_bool($value), \is_int($value), \is_float($value), \is_string($value) => $value,
            $value instanceof \DateTimeInterface => $value->format((int) $value->format('u') === 0 ? 'Y-m-d H:i:s' : 'Y-m-d H:i:s.u'),
            $value instanceof \BackedEnum => $value->value,
            $value instanceof \Stringable => (string) $value,
            default => throw new DatabaseError(\sprintf(
                'Parameter %s is a %s; bind null, bool, int, float, string, Stringable, DateTimeInterface or a BackedEnum',
                \is_int($position) ? '#' . ($position + 1) : ":{$position}",
                \get_debug_type($value),
            )),
        };
    }
}
