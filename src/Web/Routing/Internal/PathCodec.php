<?php

declare(strict_types=1);

namespace Petrel\Web\Routing\Internal;

/**
 * The path encoding rules of the router. Routes match the raw (still percent-encoded) path,
 * brought to one canonical spelling first, so that "%2F" inside a segment never becomes a
 * separator; parameter values are decoded only after matching.
 *
 * Canonical form (RFC 3986 §6.2.2): escapes of unreserved characters are decoded ("%7E" →
 * "~", "%41" → "A"), other escapes get upper-case hex ("%2f" → "%2F"), and every byte that
 * may not appear raw in a path (space, non-ASCII, a "%" not starting an escape, …) is
 * escaped. Route patterns' literal parts are put in the same form, so "/café" and
 * "/caf%C3%A9" are the same route. Nothing else changes: no dot-segment removal, no
 * slash merging.
 *
 * @internal
 */
final class PathCodec
{
    /** Bytes a canonical path holds raw: RFC 3986 pchar without "%", plus "/". */
    public const RAW = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&\'()*+,;=:@/';

    private const UNRESERVED = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~';

    public static function isCanonical(string $path): bool
    {
        return \strspn($path, self::RAW) === \strlen($path);
    }

    public static function canonicalize(string $path): string
    {
        if (\strspn($path, self::RAW) === \strlen($path)) {
            return $path;
        }

        return (string) \preg_replace_callback(
            '~%([0-9A-Fa-f]{2})|[^' . \preg_quote(self::RAW, '~') . ']~',
            static function (array $m): string {
                if (!isset($m[1])) {
                    return '%' . \strtoupper(\bin2hex($m[0]));
                }
                $byte = \chr((int) \hexdec($m[1]));

                return \str_contains(self::UNRESERVED, $byte) ? $byte : '%' . \strtoupper($m[1]);
            },
            $path,
        );
    }

    /**
     * Decodes a canonical parameter value; null when it decodes to invalid UTF-8 or holds a
     * NUL byte (the request is then answered with 400).
     */
    public static function decode(string $value): ?string
    {
        if (!\str_contains($value, '%')) {
            return $value;
        }
        $decoded = \rawurldecode($value);
        if (\str_contains($decoded, "\0") || !\mb_check_encoding($decoded, 'UTF-8')) {
            return null;
        }

        return $decoded;
    }
}
