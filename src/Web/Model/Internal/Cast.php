<?php

declare(strict_types=1);

namespace Petrel\Web\Model\Internal;

use DateTimeImmutable;
use DateTimeInterface;
use DateTimeZone;
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

    /** A PHP value to what is bound in SQL (dates as 'Y-m-d H:i:s' in the default timezone, json encoded). */
    public static function toDatabase(?string $cast, mixed $value): mixed
    {
        if ($value instanceof DateTimeInterface) {
            return DateTimeImmutable::createFromInterface($value)
                ->setTimezone(new DateTimeZone(\date_default_timezone_get()))
                ->format(self::DATETIME_FORMAT);
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

    /** Refuses to truncate: "3.7" is not an int, "3.0" and 3.0 are. */
    private static function integer(int|float|string $value, string $attribute): int
    {
        $float = (float) $value;
        if ($float !== \floor($float) || \abs($float) > \PHP_INT_MAX) {
            throw new ModelError("Attribute \"{$attribute}\" (int) cannot take the non-integer {$value}");
        }

        return (int) $value;
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

    private static function decimal(int|float|string $value, string $cast): string
    {
        $scale = \str_contains($cast, ':') ? (int) \explode(':', $cast, 2)[1] : null;
        if ($scale !== null) {
            if (\is_string($value) && \preg_match('/^(-?\d+)(?:\.(\d*))?$/', $value, $m) === 1 && \strlen($m[2] ?? '') <= $scale) {
                return $scale === 0 ? $m[1] : $m[1] . '.' . \str_pad($m[2] ?? '', $scale, '0'); // exact, no float round trip
            }

            return \number_format((float) $value, $scale, '.', '');
        }

        return \is_float($value) ? \rtrim(\rtrim(\sprintf('%.15F', $value), '0'), '.') : (string) $value;
    }

    private static function refuse(mixed $value, string $cast, string $attribute): never
    {
        throw new ModelError(\sprintf('Attribute "%s" (%s) cannot take a %s', $attribute, $cast, \get_debug_type($value)));
    }
}
