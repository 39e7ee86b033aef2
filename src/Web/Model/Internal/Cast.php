<?php

declare(strict_types=1);

namespace Petrel\Web\Model\Internal;

use DateTimeImmutable;
use DateTimeInterface;
use DateTimeZone;
use Petrel\Web\Internal\IntegerText;
use Petrel\Web\Model\ModelError;

/**
 * Attribute casts: int, float, bool, string, datetime (DateTimeImmutable), json (decoded
 * value, usually an array), decimal (numeric string; decimal:2 fixes the scale). null stays
 * null for every cast. Conversions are lenient on what databases return (0/1 and t/f for
 * bool, numeric strings) and refuse what makes no sense (ModelError).
 *
 * @internal
 */
final class Cast
{
    public const DATETIME_FORMAT = 'Y-m-d H:i:s';
    /** With the microseconds, when there are some (a DATETIME(6) or timestamp column keeps them). */
    public const DATETIME_MICRO_FORMAT = 'Y-m-d H:i:s.u';
    /** 2^63 as a float: the first float past PHP_INT_MAX ((float) PHP_INT_MAX is this value). */
    private const INT_LIMIT = 9.2233720368547758E18;

    /** A value as the database returned it, to its PHP type. */
    public static function fromDatabase(?string $cast, mixed $value, string $attribute): mixed
    {
        if ($value !== null && \is_string($value) && self::base($cast) === 'json') {
            try {
                return \json_decode($value, true, 512, \JSON_THROW_ON_ERROR);
            } catch (\JsonException $error) {
                throw new ModelError("Attribute \"{$attribute}\" holds invalid JSON: {$error->getMessage()}", 0, $error);
            }
        }

        return self::fromInput($cast, $value, $attribute);
    }

    /**
     * For a cast whose loaded values are worth converting at their first use only (dates,
     * JSON): its base cast, 'datetime' or 'json', to give fromDatabaseDeferred(). Null for
     * the others, cheap enough to convert when the row is loaded.
     */
    public static function deferredBase(string $cast): ?string
    {
        $base = self::base($cast);

        return $base === 'datetime' || $base === 'json' ? $base : null;
    }

    /**
     * fromDatabase() for a value not null, of a cast that deferredBase() named: a loaded
     * date goes to datetime() without the two lookups of its cast on the way (a call each),
     * once per date a template prints.
     */
    public static function fromDatabaseDeferred(string $base, mixed $value, string $attribute): mixed
    {
        return $base === 'datetime' ? self::datetime($value, $attribute) : self::fromDatabase($base, $value, $attribute);
    }

    /** A value set by code, to the attribute's PHP type. */
    public static function fromInput(?string $cast, mixed $value, string $attribute): mixed
    {
        if ($value === null || $cast === null) {
            return $value;
        }

        return match (self::base($cast)) {
            'int' => \is_int($value) ? $value : (\is_bool($value) ? (int) $value : self::integer(self::numeric($value, $cast, $attribute), $attribute)),
            'float' => \is_float($value) ? $value : (float) self::numeric($value, $cast, $attribute),
            'bool' => self::bool($value, $attribute),
            'string' => \is_scalar($value) || $value instanceof \Stringable ? (string) $value : self::refuse($value, $cast, $attribute),
            'datetime' => self::datetime($value, $attribute),
            'json' => $value,
            'decimal' => self::decimal(self::numeric($value, $cast, $attribute), $cast),
            default => throw new ModelError("Unknown cast \"{$cast}\" for attribute \"{$attribute}\" (use int, float, bool, string, datetime, json, decimal or decimal:N)"),
        };
    }

    /**
     * A PHP value to what is bound in SQL: dates as 'Y-m-d H:i:s' in the default timezone,
     * with '.u' when they have microseconds (a column without fractions rounds them, as the
     * server does for any value); json encoded.
     */
    public static function toDatabase(?string $cast, mixed $value): mixed
    {
        if ($value instanceof DateTimeInterface) {
            return DateTimeImmutable::createFromInterface($value)
                ->setTimezone(new DateTimeZone(\date_default_timezone_get()))
                ->format($value->format('u') === '000000' ? self::DATETIME_FORMAT : self::DATETIME_MICRO_FORMAT);
        }
        if ($value !== null && self::base($cast) === 'json') {
            return \json_encode($value, \JSON_THROW_ON_ERROR | \JSON_UNESCAPED_UNICODE | \JSON_UNESCAPED_SLASHES | \JSON_PRESERVE_ZERO_FRACTION);
        }

        return $value;
    }

    /** A PHP value for toArray()/JSON: dates as ISO 8601. */
    public static function toJson(mixed $value): mixed
    {
        return $value instanceof DateTimeInterface ? $value->format(DateTimeInterface::ATOM) : $value;
    }

    private static function base(?string $cast): ?string
    {
        return match ($cast) {
            null, 'int', 'float', 'bool', 'string', 'datetime', 'json', 'decimal' => $cast,
            'integer' => 'int',
            'double' => 'float',
            'boolean' => 'bool',
            'array' => 'json',
            default => \explode(':', $cast, 2)[0],
        };
    }

    private static function numeric(mixed $value, string $cast, string $attribute): int|float|string
    {
        if (\is_int($value) || \is_float($value) || (\is_string($value) && \is_numeric($value))) {
            return $value;
        }

        return self::refuse($value, $cast, $attribute);
    }

    /**
     * Refuses to truncate or to saturate: "3.7" is not an int, "3.0" and 3.0 are;
     * "9223372036854775808" is out of range. A string of digits is read as digits, never
     * through a float (which holds 53 bits: "9007199254740993.4" would pass as ...994).
     */
    private static function integer(int|float|string $value, string $attribute): int
    {
        if (\is_string($value) && \preg_match('/^\s*([+-]?\d+)(?:\.(\d*))?\s*$/D', $value, $m) === 1) {
            $int = IntegerText::parse($m[1]);
            if ($int === null || \trim($m[2] ?? '', '0') !== '') {
                throw new ModelError("Attribute \"{$attribute}\" (int) cannot take " . ($int === null ? 'the out-of-range ' : 'the non-integer ') . \trim($value));
            }

            return $int;
        }
        $float = (float) $value; // a float, or a numeric string with an exponent
        if ($float !== \floor($float) || \abs($float) >= self::INT_LIMIT) {
            throw new ModelError("Attribute \"{$attribute}\" (int) cannot take the non-integer or out-of-range {$value}");
        }

        return (int) $float;
    }

    private static function bool(mixed $value, string $attribute): bool
    {
        return match (true) {
            \is_bool($value) => $value,
            $value === 1, $value === '1', $value === 't', $value === 'true' => true,
            $value === 0, $value === '0', $value === 'f', $value === 'false', $value === '' => false,
            default => self::refuse($value, 'bool', $attribute),
        };
    }

    private static function datetime(mixed $value, string $attribute): DateTimeImmutable
    {
        if ($value instanceof DateTimeInterface) {
            return DateTimeImmutable::createFromInterface($value);
        }
        if (\is_int($value)) {
            return (new DateTimeImmutable("@{$value}"))->setTimezone(new DateTimeZone(\date_default_timezone_get()));
        }
        if (\is_string($value)) {
            try {
                return ParsedDates::parse($value);
            } catch (\Exception $error) {
                throw new ModelError("Attribute \"{$attribute}\" is not a date: \"{$value}\"", 0, $error);
            }
        }

        return self::refuse($value, 'datetime', $attribute);
    }

    /**
     * A numeric string, exact: a string of digits is never taken through a float (which
     * keeps ~15 significant digits); with a scale, rounded half away from zero as SQL's
     * DECIMAL does. A float is written in its shortest exact form, without an exponent.
     */
    private static function decimal(int|float|string $value, string $cast): string
    {
        $scale = \str_contains($cast, ':') ? (int) \explode(':', $cast, 2)[1] : null;
        [$sign, $int, $fraction] = self::digits(\is_float($value) ? self::plainFloat($value) : \trim((string) $value))
            ?? self::digits(self::plainFloat((float) $value)) // an exponent: "1e3"
            ?? throw new ModelError("Not a decimal number: {$value}");
        if ($scale === null) {
            $fraction = \rtrim($fraction, '0');
        } elseif (\strlen($fraction) > $scale) {
            $up = \substr($fraction, $scale, 1) >= '5';
            $digits = $int . \substr($fraction, 0, $scale);
            if ($up) { // + 1 in the last place, carrying
                $i = \strlen($digits) - 1;
                while ($i >= 0 && $digits[$i] === '9') {
                    $digits[$i--] = '0';
                }
                $digits = $i < 0 ? '1' . $digits : \substr_replace($digits, (string) ((int) $digits[$i] + 1), $i, 1);
            }
            $int = \substr($digits, 0, \strlen($digits) - $scale) ?: '0';
            $fraction = (string) \substr($digits, \strlen($digits) - $scale);
        } else {
            $fraction = \str_pad($fraction, $scale, '0');
        }
        $result = $int . ($fraction === '' ? '' : '.' . $fraction);

        return $sign === '-' && \trim($result, '0.') !== '' ? '-' . $result : $result;
    }

    /**
     * A number in plain notation as [sign ('-' or ''), integer digits, fraction digits];
     * null for anything else (an exponent).
     *
     * @return array{string, string, string}|null
     */
    private static function digits(string $number): ?array
    {
        if (\preg_match('/^([+-]?)(\d*)(?:\.(\d*))?$/D', $number, $m) !== 1 || ($m[2] === '' && ($m[3] ?? '') === '')) {
            return null;
        }

        return [$m[1] === '-' ? '-' : '', \ltrim($m[2], '0') ?: '0', $m[3] ?? ''];
    }

    /** $value in plain decimal notation, as few digits as give it back exactly: 1.0E-20 → 0.00000000000000000001. */
    private static function plainFloat(float $value): string
    {
        $text = \var_export($value, true); // the shortest exact form, maybe with an exponent
        if (\preg_match('/^(-?)(\d+)(?:\.(\d+))?E([+-]\d+)$/D', $text, $m) !== 1) {
            return $text;
        }
        $digits = $m[2] . $m[3];
        $point = \strlen($m[2]) + (int) $m[4];
        $digits = $point <= 0 ? \str_repeat('0', 1 - $point) . $digits : \str_pad($digits, $point, '0');
        $point = \max($point, 1);

        return $m[1] . \substr($digits, 0, $point) . '.' . \substr($digits, $point);
    }

    private static function refuse(mixed $value, string $cast, string $attribute): never
    {
        throw new ModelError(\sprintf('Attribute "%s" (%s) cannot take a %s', $attribute, $cast, \get_debug_type($value)));
    }
}
