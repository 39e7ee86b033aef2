<?php

declare(strict_types=1);

namespace Petrel\Bench\Load;

use RuntimeException;

/** A load generator failed or printed something that is not a result. */
final class LoadException extends RuntimeException
{
    public static function unreadable(string $tool, string $output): self
    {
        $output = \trim($output);
        $last = $output === '' ? 'no output' : \substr($output, -300);

        return new self("{$tool} printed no result: {$last}");
    }
}
