<?php

declare(strict_types=1);

namespace Petrel\Web\Internal;

/**
 * Decimal digits to an int, exactly: "007" is 7, "-0" is 0; out of range is null, where
 * (int) would saturate at PHP_INT_MAX and filter_var() refuses the leading zeros of form
 * input. Shared by validation's int rule and the model's int cast.
 *
 * @internal
 */
final class IntegerText
{
    /** $digits ([+-]?\d+, checked) as an int; null past PHP_INT_MIN..PHP_INT_MAX or when not digits. */
    public static function parse(string $digits): ?int
    {
        if (\preg_match('/^[+-]?\d+$/D', $digits) !== 1) {
            return null;
        }
        $magnitude = \ltrim(\ltrim($digits, '+-'), '0');
        $normalized = $magnitude === '' ? '0' : ($digits[0] === '-' ? '-' : '') . $magnitude;
        $int = (int) $digits;

        return (string) $int === $normalized ? $int : null; // not when (int) saturated
    }
}
