<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

/**
 * Content-Disposition of a multipart/form-data part (RFC 7578 §4.2, RFC 6266).
 *
 * @internal
 */
final class ContentDisposition
{
    /**
     * `; name = value`, the value quoted (group 2: its inside) or a token (group 3). Inside
     * quotes only `\\` and `\"` are escapes, as in PHP's rfc1867 parser: browsers never
     * escape (they percent-encode `"`, CR and LF) and old IE/Edge send `C:\dir\f.txt`, so
     * any other backslash is literal. `\"` always escapes, so `"a\"` is unterminated and,
     * as in PHP, runs to the end of the header. Possessive: no backtracking into pairs.
     */
    private const PARAM = '~;\s*([!#$%&\'*+.^_`|\~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\\\]++|\\\\["\\\\]?)*+)"?|([^;]*))~';

    /**
     * Parameters of a "form-data" disposition (lowercase names, unquoted values), or null
     * when the disposition is missing or of another type.
     *
     * @return array<string, string>|null
     */
    public static function parse(string $value): ?array
    {
        $semicolon = \strpos($value, ';');
        $type = \strtolower(\trim($semicolon === false ? $value : \substr($value, 0, $semicolon)));
        if ($type !== 'form-data') {
            return null;
        }
        $params = [];
        \preg_match_all(self::PARAM, $value, $matches, \PREG_SET_ORDER | \PREG_UNMATCHED_AS_NULL);
        foreach ($matches as [, $name, $quoted, $token]) {
            $raw = $quoted !== null
                ? \preg_replace('~\\\\(["\\\\])~', '$1', $quoted) ?? ''
                : \trim((string) $token, " \t");
            $params[\strtolower((string) $name)] ??= $raw;
        }

        return $params;
    }

    /**
     * The client's file name without any path; null when the part is a plain field.
     * RFC 7578 §4.2 forbids senders to use RFC 5987 filename*, and PHP ignores it: here
     * filename wins, and a decodable filename* is used only when filename is absent.
     *
     * @param array<string, string> $params
     */
    public static function filename(array $params): ?string
    {
        $filename = $params['filename'] ?? null;
        $extended = $params['filename*'] ?? null;
        if ($filename === null && $extended !== null && \preg_match("~^(UTF-8|US-ASCII|ISO-8859-1)'[^']*'(.*)$~i", $extended, $m) === 1) {
            $decoded = \rawurldecode($m[2]);
            $filename = \strtoupper($m[1]) === 'ISO-8859-1' ? \mb_convert_encoding($decoded, 'UTF-8', 'ISO-8859-1') : $decoded;
        }
        if ($filename === null) {
            return null;
        }
        $slash = \max((int) \strrpos($filename, '/'), (int) \strrpos($filename, '\\'));
        if ($slash > 0 || \str_starts_with($filename, '/') || \str_starts_with($filename, '\\')) {
            $filename = \substr($filename, $slash + 1);
        }

        $filename = \str_replace(["\0", "\r", "\n"], '', $filename);

        return $filename === '.' || $filename === '..' ? '' : $filename;
    }
}
