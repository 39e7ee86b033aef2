<?php

declare(strict_types=1);

namespace Petrel\Web\Validation\Internal;

use Petrel\Web\Internal\IntegerText;

/**
 * The checks behind the rule names: casts for the type rules, then constraints, each
 * returning the message for a failure (null when the value passes). Messages read
 * "The {label} field …", the label being the field name with "_" and "." as spaces.
 *
 * @internal
 */
final class RuleChecks
{
    private const TRUE = [true, 1, '1', 'true', 'on', 'yes'];
    private const FALSE = [false, 0, '0', 'false', 'off', 'no'];

    /**
     * Checks $value against a type rule and casts it: numeric strings to int/float, form
     * booleans ("1", "on", "true", "0", "off", "false", …) to bool.
     *
     * @return array{bool, mixed} [passes, cast value]
     */
    public static function cast(string $type, mixed $value): array
    {
        return match ($type) {
            // Text: what goes on to JSON, a template or the database must be valid UTF-8
            // (json_encode() fails on anything else, PostgreSQL refuses it).
            'string' => [\is_string($value) && \mb_check_encoding($value, 'UTF-8'), $value],
            'array' => [\is_array($value), $value],
            'int' => self::toInt($value),
            'float' => \is_int($value) || \is_float($value) || (\is_string($value) && \is_numeric($value))
                ? [\is_finite((float) $value), (float) $value] : [false, $value],
            'bool' => \in_array($value, self::TRUE, true) ? [true, true]
                : (\in_array($value, self::FALSE, true) ? [true, false] : [false, $value]),
            default => throw new \LogicException("Unknown type rule {$type}"),
        };
    }

    public static function typeMessage(string $type, string $label): string
    {
        return match ($type) {
            'string' => "The {$label} field must be text (UTF-8).",
            'array' => "The {$label} field must be an array.",
            'int' => "The {$label} field must be an integer.",
            'float' => "The {$label} field must be a number.",
            default => "The {$label} field must be true or false.",
        };
    }

    /**
     * @param list<string> $parameters
     * @param array<mixed> $input the whole input (for "confirmed")
     */
    public static function check(string $rule, array $parameters, mixed $value, string $field, array $input, bool $numeric): ?string
    {
        $label = self::label($field);

        return match ($rule) {
            'email' => \is_string($value) && \filter_var($value, \FILTER_VALIDATE_EMAIL) !== false
                ? null : "The {$label} field must be a valid email address.",
            'url' => self::isUrl($value, $parameters === [] ? ['http', 'https'] : $parameters)
                ? null : "The {$label} field must be a valid URL.",
            'min', 'max', 'between' => self::size($rule, $parameters, $value, $label, $numeric),
            'in' => \is_scalar($value) && \in_array(self::text($value), $parameters, true)
                ? null : "The selected {$label} is invalid.",
            'regex' => \is_scalar($value) && \preg_match($parameters[0], self::text($value)) === 1
                ? null : "The {$label} field format is invalid.",
            'confirmed' => self::confirmation($input, $field) === InputPath::get($input, $field)[1]
                ? null : "The {$label} field confirmation does not match.",
            'date' => self::isDate($value, $parameters[0] ?? 'Y-m-d')
                ? null : "The {$label} field must be a valid date in the format " . ($parameters[0] ?? 'Y-m-d') . '.',
            default => throw new \LogicException("Unknown rule {$rule}"),
        };
    }

    public static function label(string $field): string
    {
        return \str_replace(['_', '.'], ' ', $field);
    }

    /** @return array{bool, mixed} */
    private static function toInt(mixed $value): array
    {
        if (\is_int($value)) {
            return [true, $value];
        }
        if (\is_string($value) && ($int = IntegerText::parse($value)) !== null) {
            return [true, $int];
        }

        return [false, $value];
    }

    /** @param list<string> $parameters */
    private static function size(string $rule, array $parameters, mixed $value, string $label, bool $numeric): ?string
    {
        [$measure, $unit] = match (true) {
            $numeric, \is_int($value), \is_float($value) => [\is_int($value) || \is_float($value) ? $value : null, ''],
            \is_array($value) => [\count($value), ' items'],
            \is_string($value) => [\function_exists('mb_strlen') ? \mb_strlen($value, 'UTF-8') : \strlen($value), ' characters'],
            default => [null, ''],
        };
        $low = self::bound($parameters[0], $measure);
        $high = self::bound($parameters[1] ?? $parameters[0], $measure);
        $passes = $measure !== null && match ($rule) {
            'min' => $measure >= $low,
            'max' => $measure <= $low,
            default => $measure >= $low && $measure <= $high,
        };
        if ($passes) {
            return null;
        }
        $have = $unit === ' items' ? 'have' : 'be';

        return match ($rule) {
            'min' => "The {$label} field must {$have} at least {$parameters[0]}{$unit}.",
            'max' => $unit === ' items'
                ? "The {$label} field must not have more than {$parameters[0]} items."
                : "The {$label} field must not be greater than {$parameters[0]}{$unit}.",
            default => "The {$label} field must {$have} between {$parameters[0]} and {$parameters[1]}{$unit}.",
        };
    }

    /**
     * A size rule's parameter, to compare with $measure: an int for an int measure when the
     * parameter is an integer, as a float from 2^53 up is not exact (9007199254740993 passed
     * "max:9007199254740992", PHP_INT_MAX passed "max:9223372036854775806").
     */
    private static function bound(string $parameter, int|float|null $measure): int|float
    {
        return \is_int($measure) ? IntegerText::parse($parameter) ?? (float) $parameter : (float) $parameter;
    }

    /** @param list<string> $schemes */
    private static function isUrl(mixed $value, array $schemes): bool
    {
        if (!\is_string($value) || \filter_var($value, \FILTER_VALIDATE_URL) === false) {
            return false;
        }
        $scheme = \parse_url($value, \PHP_URL_SCHEME);

        // Schemes are case-insensitive (RFC 3986 §3.1), in the rule ("url:HTTPS") as in the value.
        return \is_string($scheme) && \in_array(\strtolower($scheme), \array_map(\strtolower(...), $schemes), true);
    }

    private static function isDate(mixed $value, string $format): bool
    {
        if (!\is_string($value)) {
            return false;
        }
        $date = \DateTimeImmutable::createFromFormat('!' . $format, $value);

        return $date !== false && $date->format($format) === $value;
    }

    /** @param array<mixed> $input */
    private static function confirmation(array $input, string $field): mixed
    {
        return InputPath::get($input, $field . '_confirmation')[1];
    }

    private static function text(bool|int|float|string $value): string
    {
        return \is_bool($value) ? ($value ? '1' : '0') : (string) $value;
    }
}
