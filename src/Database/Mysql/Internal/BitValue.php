<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\Mysql\ProtocolException;

/**
 * A BIT(n) value as PHP sees it: the server sends ceil(n/8) big-endian bytes (in both
 * protocols); they become an int, or the decimal digits when above PHP_INT_MAX (a BIT(64)
 * with the top bit set), as BIGINT UNSIGNED does. So b'0' reads back as 0, which is falsy,
 * and b'101' as 5.
 *
 * @internal
 */
final class BitValue
{
    /** @throws ProtocolException for more than 8 bytes (BIT holds at most 64 bits) */
    public static function decode(string $bytes): int|string
    {
        $length = \strlen($bytes);
        if ($length > 8) {
            $bytes = \ltrim($bytes, "\0");
            $length = \strlen($bytes);
            if ($length > 8) {
                throw new ProtocolException("A BIT value of {$length} bytes (at most 8 are possible)");
            }
        }
        if ($length === 8) {
            /** @var array{1: int} $v */
            $v = \unpack('J', $bytes);

            return $v[1] < 0 ? \sprintf('%u', $v[1]) : $v[1];
        }
        $value = 0;
        for ($i = 0; $i < $length; ++$i) {
            $value = ($value << 8) | \ord($bytes[$i]);
        }

        return $value;
    }
}
