<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\HttpException;

/**
 * Field-line syntax shared by the request head, chunked trailers and multipart part heads
 * (RFC 9110 §5, RFC 9112 §5). Pure functions over already split lines.
 *
 * @internal
 */
final class FieldLines
{
    // No strspn/strcspn here: PHP compares every byte with every mask byte, ~20x slower on a
    // 400-byte head than a PCRE character class or a strtr() translation table.

    /** One or more tchar (RFC 9110 §5.6.2). */
    private const TOKEN = '/^[!#$%&\'*+\-.^_`|~0-9A-Za-z]+$/D';

    /** Control characters other than HTAB, CR and LF: never valid in a head ... */
    private const CTL_BUT_LINE_ENDS = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0B\x0C\x0E\x0F\x10\x11\x12\x13\x14"
        . "\x15\x16\x17\x18\x19\x1A\x1B\x1C\x1D\x1E\x1F\x7F";

    /** ... and what strtr() turns each of them into: any byte other than itself. */
    private const CTL_BUT_LINE_ENDS_CHANGED = "\x7F\x7F\x7F\x7F\x7F\x7F\x7F\x7F\x7F\x7F\x7F\x7F\x7F\x7F\x7F\x7F\x7F\x7F"
        . "\x7F\x7F\x7F\x7F\x7F\x7F\x7F\x7F\x7F\x7F\x7F\x00";

    /** A control character other than HTAB: never valid in one field value or line. */
    private const CTL = '/[\x00-\x08\x0A-\x1F\x7F]/';

    private const NAME_CACHE_SIZE = 512;

    /** Up to this many bytes, isBlockSafe() tries ctype_print() first. */
    private const SHORT_BLOCK = 128;

    /**
     * Validated field names mapped to their lowercase form: a known name costs one hash
     * lookup instead of strspn + strtolower. Bounded, so hostile names cannot grow it.
     *
     * @var array<string, string>
     */
    private static array $names = [];

    public static function isToken(string $text): bool
    {
        return \preg_match(self::TOKEN, $text) === 1;
    }

    /** No control characters but HTAB: fit for one line (a field value, a chunk extension). */
    public static function isLineSafe(string $text): bool
    {
        return \preg_match(self::CTL, $text) === 0;
    }

    /**
     * Whether a block of $lineCount CRLF-separated lines holds no control characters and
     * no CR or LF outside a CRLF pair (no bare line ends to smuggle through).
     */
    public static function isBlockSafe(string $block, int $lineCount): bool
    {
        // A short block (a load generator's or an API client's head) that is all printable
        // ASCII once its CRLFs are gone is safe: ctype_print() has ~700 instructions less
        // fixed cost than strtr(), which builds a 256-byte table per call, but is slower
        // per byte. It may say no to a valid block (HTAB, obs-text): the full check decides.
        // $lineCount is the caller's count of the block's CRLF-separated lines, so it
        // agrees with a block that has no bare CR or LF.
        if (\strlen($block) <= self::SHORT_BLOCK && \ctype_print(\str_replace("\r\n", '', $block))) {
            return true;
        }
        // strtr() returns its argument itself when it changes nothing: one table-driven
        // pass, cheaper than PCRE here (~8 vs ~13 instructions a byte).
        return \strtr($block, self::CTL_BUT_LINE_ENDS, self::CTL_BUT_LINE_ENDS_CHANGED) === $block
            && \substr_count($block, "\n") === $lineCount - 1
            && \substr_count($block, "\r") === $lineCount - 1;
    }

    /**
     * Parses "name: value" lines into lowercase name => list of values, trimming OWS. The
     * caller has checked the block these lines come from with isBlockSafe().
     *
     * @param list<string> $lines
     * @param array<string, list<string>> $fields fields to add to
     * @return array<string, list<string>>
     * @throws HttpException 400 on a malformed line
     */
    public static function parse(array $lines, int $from, array $fields = []): array
    {
        // Hot loop: runs once per header of every request; keep it free of calls that
        // are not needed for the common, valid case.
        for ($i = $from, $n = \count($lines); $i < $n; ++$i) {
            $line = $lines[$i];
            $colon = \strpos($line, ':');
            if ($colon === false) {
                throw self::malformed($line, '');
            }
            $name = \substr($line, 0, $colon);
            // FieldLines::$…, not self::$…: only a named class's static property is cached (Scheduler::get()).
            $key = FieldLines::$names[$name] ?? self::validateName($name, $line);
            // trim() without a mask takes PHP's fast path; it strips only SP and HTAB here
            // because the block was checked by isBlockSafe() (no CR, LF, NUL or VT left).
            $fields[$key][] = \trim(\substr($line, $colon + 1));
        }

        return $fields;
    }

    /**
     * Splits a comma-separated list (values already joined) into lowercase trimmed tokens.
     *
     * @return list<string>
     */
    public static function tokens(string $value): array
    {
        $tokens = [];
        foreach (\explode(',', \strtolower($value)) as $token) {
            $token = \trim($token, " \t");
            if ($token !== '') {
                $tokens[] = $token;
            }
        }

        return $tokens;
    }

    private static function validateName(string $name, string $line): string
    {
        if (\preg_match(self::TOKEN, $name) !== 1) {
            throw self::malformed($line, $name);
        }
        $key = \strtolower($name);
        if (\count(FieldLines::$names) < self::NAME_CACHE_SIZE) {
            FieldLines::$names[$name] = $key;
        }

        return $key;
    }

    private static function malformed(string $line, string $name): HttpException
    {
        if ($line !== '' && ($line[0] === ' ' || $line[0] === "\t")) {
            return new HttpException(400, 'Obsolete line folding is not allowed');
        }
        if ($name !== '' && \strspn($name, " \t", -1) === 1) {
            return new HttpException(400, 'Whitespace between header name and colon');
        }

        return new HttpException(400, $name === '' && !\str_contains($line, ':')
            ? 'Malformed header line'
            : 'Invalid header name');
    }
}
