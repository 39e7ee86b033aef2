<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

/**
 * HTTP-date (RFC 9110 §5.6.7): formats IMF-fixdate; parses IMF-fixdate and the two obsolete
 * forms recipients must accept (RFC 850 and asctime). Anything else is not a date (null),
 * never "now" or "tomorrow" as strtotime() would read it. Dates are case-sensitive and the
 * weekday must match the date.
 *
 * @internal
 */
final class HttpDate
{
    private const FORMATS = [
        '!D, d M Y H:i:s \G\M\T',      // Sun, 06 Nov 1994 08:49:37 GMT
        '!l, d-M-y H:i:s \G\M\T',      // Sunday, 06-Nov-94 08:49:37 GMT
        '!D M j H:i:s Y',              // Sun Nov  6 08:49:37 1994
    ];

    public static function format(int $timestamp): string
    {
        return \gmdate('D, d M Y H:i:s', $timestamp) . ' GMT';
    }

    /** The Unix time of an HTTP-date, or null when $value is not one. */
    public static function parse(string $value): ?int
    {
        $value = \trim($value, " \t");
        if ($value === '' || \strlen($value) > 40) {
            return null;
        }
        $utc = new \DateTimeZone('UTC');
        foreach (self::FORMATS as $i => $format) {
            // asctime pads the day with a space ("Nov  6"); j accepts one digit after one space.
            $input = $i === 2 ? (string) \preg_replace('/ {2,}/', ' ', $value) : $value;
            $date = \DateTimeImmutable::createFromFormat($format, $input, $utc);
            // Formatting back must give the input: rejects overflowing fields ("31 Feb"), a
            // wrong weekday (which createFromFormat() would move the date to) and wrong case.
            if ($date !== false && $date->format(\substr($format, 1)) === $input) {
                return $date->getTimestamp();
            }
        }

        return null;
    }
}
