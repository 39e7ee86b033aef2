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
 * timezone, which they are remembered with; "now", "tomorrow" or a bare "10:30" depend on when.
 * At most 256 strings, then it starts afresh (values from rows vary), the memory bounded
 * like the escaper's plain strings.
 *
 * @internal
 */
final class ParsedDates
{
    private const MAX = 256;

    /** The default timezone the strings of $parsed were parsed in. */
    private static string $timezone = '';
    /** @var array<string, DateTimeImmutable> string => parsed in $timezone */
    private static array $parsed = [];

    /** new DateTimeImmutable($value) @throws \Exception as it does, for a string it cannot parse */
    public static function parse(string $value): DateTimeImmutable
    {
        // The strings remembered are of one timezone at a time, forgotten when it changes (a
        // worker keeps one): the string itself is the key, rather than one made on every call
        // with the timezone's name (~400 instructions of a hit's ~2,250).
        $timezone = \date_default_timezone_get();
        // ParsedDates::$…, not self::$…: only a named class's static property is cached (Scheduler::get()).
        if ($timezone !== ParsedDates::$timezone) {
            ParsedDates::$timezone = $timezone;
            ParsedDates::$parsed = [];
        }
        $date = ParsedDates::$parsed[$value] ?? null;
        if ($date !== null) {
            return clone $date;
        }
        $date = new DateTimeImmutable($value);
        if (self::isFixed($value)) {
            if (\count(ParsedDates::$parsed) >= self::MAX) {
                ParsedDates::$parsed = [];
            }
            ParsedDates::$parsed[$value] = $date; // never handed out again: later calls get clones
        }

        return $date;
    }

    /**
     * Whether $value, parsed, names the same instant whenever it is parsed (given the default
     * timezone): it begins with a full date. So it may be remembered, here and by what keeps
     * results derived from it (View's `date` filter: ShortcutDateExtension).
     */
    public static function isFixed(string $value): bool
    {
        return \preg_match('/^\d{4}-\d{2}-\d{2}/', $value) === 1;
    }
}
