<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\Request;
use Petrel\Http\Status;

/**
 * Conditional GET/HEAD of a static file (RFC 9110 §13.2.2, in its order): If-Match, else
 * If-Unmodified-Since (412 when false); If-None-Match, else If-Modified-Since (304 when
 * false); and If-Range, which decides whether a Range is honoured. Unparseable dates are
 * ignored, as the RFC requires.
 *
 * @internal
 */
final class Preconditions
{
    private const TAG = '~(W/)?("[^"]*")~';

    /** 0 to go on and serve the file, or Status::NOT_MODIFIED / 412 (Precondition Failed). */
    public static function evaluate(Request $request, StaticFile $file): int
    {
        $ifMatch = $request->getHeader('if-match');
        if ($ifMatch !== null) {
            if (!self::matches($ifMatch, $file->etag, weak: false)) {
                return 412;
            }
        } else {
            $date = self::date($request, 'if-unmodified-since');
            if ($date !== null && $file->mtime > $date) {
                return 412;
            }
        }
        $ifNoneMatch = $request->getHeader('if-none-match');
        if ($ifNoneMatch !== null) {
            return self::matches($ifNoneMatch, $file->etag, weak: true) ? Status::NOT_MODIFIED : 0;
        }
        $date = self::date($request, 'if-modified-since');

        return $date !== null && $file->mtime <= $date ? Status::NOT_MODIFIED : 0;
    }

    /**
     * Whether a Range may be honoured under If-Range: always without one; with an entity tag,
     * when it equals ours by strong comparison (a weak tag never does); with a date, when it
     * is exactly the file's mtime and that is at least a second old (a strong validator).
     */
    public static function rangeApplies(Request $request, StaticFile $file): bool
    {
        $ifRange = $request->getHeader('if-range');
        if ($ifRange === null) {
            return true;
        }
        $ifRange = \trim($ifRange, " \t");
        if ($ifRange !== '' && ($ifRange[0] === '"' || \str_starts_with($ifRange, 'W/'))) {
            return $ifRange === $file->etag;
        }
        $date = HttpDate::parse($ifRange);

        return $date !== null && $date === $file->mtime && $file->mtime < \time();
    }

    /** Whether an If-Match / If-None-Match value ("*" or a list of entity tags) matches $etag. */
    private static function matches(string $value, string $etag, bool $weak): bool
    {
        if (\trim($value, " \t") === '*') {
            return true;
        }
        \preg_match_all(self::TAG, $value, $tags, \PREG_SET_ORDER);
        foreach ($tags as $tag) {
            if ($tag[2] === $etag && ($weak || $tag[1] === '')) {
                return true;
            }
        }

        return false;
    }

    private static function date(Request $request, string $header): ?int
    {
        $value = $request->getHeader($header);

        return $value === null ? null : HttpDate::parse($value);
    }
}
