<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

/**
 * Why the last fopen() failed, as a reader wants it after a path already named: PHP's
 * warning without its "fopen(path): Failed to open stream: " ("No such file or directory").
 *
 * @internal
 */
final class FopenFailure
{
    private function __construct()
    {
    }

    public static function reason(string $unknown = 'unknown error'): string
    {
        return (string) \preg_replace('/^fopen\(.*?\): (Failed to open stream: )?/i', '', \error_get_last()['message'] ?? $unknown);
    }
}
