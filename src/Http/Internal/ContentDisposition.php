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
    private const PARAM = '~;\s*([!#$%&\'*+.^_`|\~0-9A-Za-z-]+)\s*=\s*("(?:[^"\\\\]|\\\\.)*"|[^;]*)~';

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
        \preg_match_all(self::PARAM, $value, $matches, \PREG_SET_ORDER);
        foreach ($matches as [, $name, $raw]) {
            $raw = \trim($raw, " \t");
            if (\strlen($raw) >= 2 && $raw[0] === '"') {
                $raw = \preg_replace('~\\\\(.)~s', '$1', \substr($raw, 1, -1)) ?? '';
            }
            $params[\strtolower($name)] ??= $raw;
        }

        return $params;
    }

    /**
     * The client's file name without any path, preferring RFC 5987 filename*; null when
     * the part is a plain field.
     *
     * @param array<string, string> $params
     */
    public static function filename(array $params): ?string
    {
        $filename = $params['filename'] ?? null;
        $extended = $params['filename*'] ?? null;
        if ($extended !== null && \preg_match("~^(UTF-8|US-ASCII|ISO-8859-1)'[^']*'(.*)$~i", $extended, $m) === 1) {
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
