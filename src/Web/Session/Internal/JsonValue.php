<?php

declare(strict_types=1);

namespace Petrel\Web\Session\Internal;

use Petrel\Web\Session\SessionError;

/**
 * Checks that a session value survives a JSON round trip: null, bool, int, finite float,
 * UTF-8 string, or an array of these (nested at most MAX_DEPTH levels).
 */
final class JsonValue
{
    public const MAX_DEPTH = 64;

    /** @throws SessionError naming the first offending element */
    public static function check(mixed $value, string $path, int $depth = 0): void
    {
        if ($value === null || \is_bool($value) || \is_int($value)) {
            return;
        }
        $problem = match (true) {
            \is_float($value) => \is_finite($value) ? null : 'a non-finite float',
            \is_string($value) => \preg_match('//u', $value) === 1 ? null : 'a string that is not valid UTF-8',
            \is_array($value) => $depth >= self::MAX_DEPTH ? 'an array nested too deep' : null,
            default => 'a value of type ' . \get_debug_type($value),
        };
        if ($problem !== null) {
            throw new SessionError("Session value \"{$path}\" is {$problem}: session values must be JSON data (null, bool, int, float, UTF-8 string, arrays of these)");
        }
        if (\is_array($value)) {
            foreach ($value as $key => $item) {
                if (\is_string($key) && \preg_match('//u', $key) !== 1) {
                    throw new SessionError("Session value \"{$path}\" has a key that is not valid UTF-8");
                }
                self::check($item, "{$path}.{$key}", $depth + 1);
            }
        }
    }
}
