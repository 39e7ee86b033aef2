<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

/**
 * The Date header value (IMF-fixdate, RFC 9110 §5.6.7), formatted at most once per second.
 * The cache is a pure memo of time(); it carries no state between requests.
 *
 * @internal
 */
final class DateCache
{
    private static int $second = -1;

    private static string $value = '';

    /** e.g. "Sun, 06 Nov 1994 08:49:37 GMT" for now, or for the Unix time $now. */
    public static function get(?int $now = null): string
    {
        $now ??= \time();
        // DateCache::$…, not self::$…: only a named class's static property is cached (Scheduler::get()).
        if ($now !== DateCache::$second) {
            DateCache::$second = $now;
            DateCache::$value = \gmdate('D, d M Y H:i:s', $now) . ' GMT';
        }

        return DateCache::$value;
    }
}
