<?php

declare(strict_types=1);

namespace Petrel\Http\Psr\Internal;

/**
 * Where a PSR-7 seek() lands, for the bridge's streams (FileBodyStream, BufferedBodyStream):
 * fseek()'s rules, a position before the start refused.
 *
 * @internal
 */
final class SeekTarget
{
    /** @throws \RuntimeException for an unknown $whence or a position before the start */
    public static function of(int $offset, int $whence, int $current, int $end): int
    {
        $position = match ($whence) {
            \SEEK_SET => $offset,
            \SEEK_CUR => $current + $offset,
            \SEEK_END => $end + $offset,
            default => throw new \RuntimeException('Invalid whence ' . $whence),
        };
        if ($position < 0) {
            throw new \RuntimeException(\sprintf('Cannot seek to position %d', $position));
        }

        return $position;
    }
}
