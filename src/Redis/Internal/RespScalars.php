<?php

declare(strict_types=1);

namespace Petrel\Redis\Internal;

use Petrel\Redis\RedisErrorReply;
use Petrel\Redis\RedisProtocolException;

/**
 * Decoding of the less frequent RESP scalar types, out of {@see RespParser}'s hot loop.
 *
 * @internal
 */
final class RespScalars
{
    private const DOUBLE = '/^[+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/D';

    private function __construct()
    {
    }

    /**
     * Decodes the line of a one-line type other than '+' and ':' ('-', '_', '#', ',', '(').
     *
     * @param int $at stream offset of the type byte, for the error message
     * @throws RedisProtocolException for an unknown type byte or an invalid line
     */
    public static function line(string $type, string $line, int $at): mixed
    {
        switch ($type) {
            case '-':
                return RedisErrorReply::fromText($line);
            case '_':
                if ($line === '') {
                    return null;
                }
                break;
            case '#':
                if ($line === 't' || $line === 'f') {
                    return $line === 't';
                }
                break;
            case ',':
                $double = self::double($line);
                if ($double !== null) {
                    return $double;
                }
                break;
            case '(':
                if (preg_match('/^[+-]?[0-9]+$/D', $line) === 1) {
                    return $line;
                }
                break;
            default:
                throw self::error(sprintf('unknown type byte 0x%02x %s', ord($type), self::quote($type)), $at);
        }

        throw self::error(sprintf("invalid '%s' value %s", $type, self::quote($line)), $at);
    }

    /**
     * Integer in the forms the fast path does not take ("+5", "007", "-0"); null when
     * the line is not a decimal integer or falls outside the signed 64-bit range.
     */
    public static function integer(string $line): ?int
    {
        if (preg_match('/^([+-]?)0*([0-9]+)$/D', $line, $m) !== 1) {
            return null;
        }
        $negative = $m[1] === '-';
        $digits = $m[2];
        $limit = $negative ? '9223372036854775808' : '9223372036854775807';
        if (strlen($digits) > 19 || (strlen($digits) === 19 && strcmp($digits, $limit) > 0)) {
            return null;
        }
        if ($negative) {
            return $digits === $limit ? PHP_INT_MIN : -(int) $digits;
        }

        return (int) $digits;
    }

    /**
     * A double's text as Redis sends it; null when invalid. NaN is accepted in every
     * form libc printed it before Redis 7.2 ("nan", "-nan", "NAN", "nan(…)").
     */
    public static function double(string $line): ?float
    {
        if (preg_match(self::DOUBLE, $line) === 1) {
            return (float) $line;
        }

        return match (strtolower($line)) {
            'inf', '+inf' => INF,
            '-inf' => -INF,
            default => preg_match('/^[+-]?nan(?:\([0-9a-z_]*\))?$/Di', $line) === 1 ? NAN : null,
        };
    }

    /**
     * The value of a blob error ('!') or verbatim string ('='); null for a verbatim
     * string lacking its 3-byte format and ':' ("txt:…").
     */
    public static function blob(string $type, string $body): RedisErrorReply|string|null
    {
        if ($type === '!') {
            return RedisErrorReply::fromText($body);
        }
        if (strlen($body) < 4 || $body[3] !== ':') {
            return null;
        }

        return substr($body, 4);
    }

    public static function error(string $what, int $at): RedisProtocolException
    {
        return new RedisProtocolException(sprintf('Invalid RESP reply at stream offset %d: %s', $at, $what));
    }

    /** A short, printable rendering of untrusted bytes for error messages. */
    public static function quote(string $bytes): string
    {
        $shown = addcslashes(substr($bytes, 0, 32), "\0..\37\"\\\177..\377");

        return '"' . $shown . (strlen($bytes) > 32 ? '…' : '') . '"';
    }
}
