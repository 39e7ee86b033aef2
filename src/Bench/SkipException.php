<?php

declare(strict_types=1);

namespace Petrel\Bench;

use RuntimeException;

/**
 * A point cannot run on this machine, and the message says what to install or set.
 * The other points still run; the report lists this one as skipped with the message.
 */
final class SkipException extends RuntimeException
{
    public static function missing(string $tool, string $package): self
    {
        return new self("{$tool} is not installed (Debian: apt-get install {$package})");
    }
}
