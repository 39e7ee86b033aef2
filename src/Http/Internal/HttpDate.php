<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

/**
 * HTTP-date (RFC 9110 §5.6.7): formats IMF-fixdate; parses IMF-fixdate and the two obsolete
 * forms recipients must accept (RFC 850 and asctime). Anything else is not a date (null),
 * never "now" or "tomorrow" as strtotime() would read it. Dates are case-sensitive and the
 * weekday must match the date.
 *
 * An RFC 850 date's two-digit year is read as the RFC requires, relative to now: the latest
 * year with those digits that is not more than 50 years in the future (in 2026, "70" is 2070
 * and "77" 1977). createFromFormat()'s "y" fixes 70–99 to 19xx, which read "70" a century
 * early and checked the weekday against the wrong year.
 *
 * @internal
 */
final class HttpDate
{
    private const IMF_FIXDATE = '!D, d M Y H:i:s \G\M\T';       // Sun, 06 Nov 1994 08:49:37 GMT
    private const ASCTIME = '!D M j H:i:s Y';                   // Sun Nov  6 08:49:37 1994
    private const RFC_850 = '/^[A-Z][a-z]{5,8}, (\d\d)-([A-Z][a-z]{2})-(\d\d) (\d\d:\d\d:\d\d) GMT$/D';
    private const MONTHS = 'JanFebMarAprMayJunJulAugSepOctNovDec';

    public static function format(int $timestamp): string
    {
        return \gmdate('D, d M Y H:i:s', $timestamp) . ' GMT';
    }

    /**
     * The Unix time of an HTTP-date, or null when $value is not one.
     *
     * @param int|null $now the Unix time an RFC 850 two-digit year is read against; null for time()
     */
    public static function parse(string $value, ?int $now = null): ?int
    {
        $value = \trim($value, " \t");
        if ($value === '' || \strlen($value) > 40) {
            return null;
        }
        $utc = new \DateTimeZone('UTC');
        $date = \DateTimeImmutable::createFromFormat(self::IMF_FIXDATE, $value, $utc);
        // Formatting back must give the input: rejects overflowing fields ("31 Feb"), a
        // wrong weekday (which createFromFormat() would move the date to) and wrong case.
        if ($date !== false && $date->format(\substr(self::IMF_FIXDATE, 1)) === $value) {
            return $date->getTimestamp();
        }
        if (\preg_match(self::RFC_850, $value, $m)) {
            return self::rfc850($value, $m, $now ?? \time(), $utc);
        }
        // asctime pads the day with a space ("Nov  6"); j accepts one digit after one space.
        $input = (string) \preg_replace('/ {2,}/', ' ', $value);
        $date = \DateTimeImmutable::createFromFormat(self::ASCTIME, $input, $utc);

        return $date !== false && $date->format(\substr(self::ASCTIME, 1)) === $input ? $date->getTimestamp() : null;
    }

    /**
     * "Sunday, 06-Nov-94 08:49:37 GMT", its year the latest with those two digits whose
     * timestamp is not more than 50 years after $now (RFC 9110 §5.6.7).
     *
     * @param array<int, string> $m RFC_850's groups: day, month name, two-digit year, time
     */
    private static function rfc850(string $value, array $m, int $now, \DateTimeZone $utc): ?int
    {
        $month = \strpos(self::MONTHS, $m[2]);
        if ($month === false || $month % 3 !== 0) {
            return null;
        }
        // "mm-dd hh:mm:ss" compares as text, so "50 years ahead" needs no calendar arithmetic
        // (now + 50 years from a 29 February has no day to land on).
        $rest = \sprintf('%02d-%s %s', $month / 3 + 1, $m[1], $m[4]);
        $nowYear = (int) \gmdate('Y', $now);
        $nowRest = \gmdate('m-d H:i:s', $now);
        $year = $nowYear - $nowYear % 100 + (int) $m[3]; // in now's century
        if ($year - 50 > $nowYear || ($year - 50 === $nowYear && $rest > $nowRest)) {
            $year -= 100;
        } elseif ($year + 50 < $nowYear || ($year + 50 === $nowYear && $rest <= $nowRest)) {
            $year += 100; // a century on is still not more than 50 years ahead
        }
        $date = \DateTimeImmutable::createFromFormat('!Y-m-d H:i:s', "{$year}-{$rest}", $utc);

        // As above; the weekday is checked against the year just chosen.
        return $date !== false && $date->format('l, d-M-y H:i:s \G\M\T') === $value ? $date->getTimestamp() : null;
    }
}
