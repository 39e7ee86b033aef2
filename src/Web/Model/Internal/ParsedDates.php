<?php

declare(strict_types=1);

namespace Petrel\Web\Model\Internal;

use DateTimeImmutable;

/**
 * Date strings parsed before, for Cast: `new DateTimeImmutable($value)` costs ~6,000
 * instructions, a copy of its result ~650, and the same dates come back request after
 * request (a row read again: blog `GET /` shows user #1's created_at every time). Each call
 * still returns an object of its own (a clone), so === and spl_object_id() behave as if
 * every value had been parsed.
 *
 * Only strings that begin with a full date (YYYY-MM-DD, as every database writes them) are
 * remembered: such a string names the same instant whenever it is parsed, given the default
 * timezone, which is part of the key; "now", "tomorrow" or a bare "10:30" depend on when.
 * At most 256 strings, then it starts afresh (values from rows vary), the memory bounded
 * like the escaper's plain strings.
 *
 * @internal
 */
final class ParsedDates
{
    private const MAX = 256;

    /** @var array<string, DateTimeImmutable> default timezone . "\0" . string => parsed */
    private static array $parsed = [];

    /** new DateTimeImmutable($value) @throws \Exception as it does, for a string it cannot parse */
    public static function parse(string $value): DateTimeImmutable
    {
        $key = \date_default_timezone_get() . "\0" . $value;
        if (isset(self::$parsed[$key])) {
            return clone self::$parsed[$key];
        }
        $date = new DateTimeImmutable($value);
        if (\preg_match('/^\d{4}-\d{2}-\d{2}/', $value) === 1) {
            if (\count(self::$parsed) >= self::MAX) {
                self::$parsed = [];
            }
            self::$parsed[$key] = $date; // never handed out again: later calls get clones
        }

        return $date;
    }
}
