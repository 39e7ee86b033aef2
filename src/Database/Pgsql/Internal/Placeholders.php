<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Petrel\Database\DatabaseError;

/**
 * Rewrites the Connection contract's placeholders into PostgreSQL's `$1..$n`:
 *
 *  - `?` positional (`??` stands for a literal `?`, e.g. the jsonb operator: `data ?? 'key'`);
 *  - `:name` named (the same name may appear several times and binds one parameter); a
 *    `:` right after a letter, digit or `_` is not a placeholder, so `arr[1:n]` slices and
 *    `::type` casts pass through;
 *  - native `$1..$n` pass through unchanged (without parameters bound they are not checked:
 *    they may belong to the statement itself, as in PREPARE … AS or a function body).
 *
 * Nothing inside string literals ('…' with '' escapes, E'…' with backslash escapes,
 * dollar-quoted $tag$…$tag$), quoted identifiers ("…") or comments (-- and nested /* *\/) is
 * touched. Mixing styles is a DatabaseError. The server's standard_conforming_strings is
 * assumed on (the default since PostgreSQL 9.1): backslashes escape only inside E'…'.
 *
 * Conversions are pure, so they are memoised per SQL string for the whole worker (a
 * bounded table: the oldest half is dropped when it fills).
 *
 * @internal
 */
final class Placeholders
{
    private const CACHE_SIZE = 512;
    private const IDENTIFIER = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'
        . "\x80\x81\x82\x83\x84\x85\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x8e\x8f\x90\x91\x92\x93\x94\x95"
        . "\x96\x97\x98\x99\x9a\x9b\x9c\x9d\x9e\x9f\xa0\xa1\xa2\xa3\xa4\xa5\xa6\xa7\xa8\xa9\xaa\xab"
        . "\xac\xad\xae\xaf\xb0\xb1\xb2\xb3\xb4\xb5\xb6\xb7\xb8\xb9\xba\xbb\xbc\xbd\xbe\xbf\xc0\xc1"
        . "\xc2\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf\xd0\xd1\xd2\xd3\xd4\xd5\xd6\xd7"
        . "\xd8\xd9\xda\xdb\xdc\xdd\xde\xdf\xe0\xe1\xe2\xe3\xe4\xe5\xe6\xe7\xe8\xe9\xea\xeb\xec\xed"
        . "\xee\xef\xf0\xf1\xf2\xf3\xf4\xf5\xf6\xf7\xf8\xf9\xfa\xfb\xfc\xfd\xfe\xff";

    /** Statements worth preparing for the statement cache: plain queries and DML. */
    private const PREPARABLE = '/^[\s(]*(?:SELECT|INSERT|UPDATE|DELETE|WITH|VALUES|TABLE|MERGE)\b/i';

    /** @var array<string, ParsedSql> */
    private static array $cache = [];

    public static function parse(string $sql): ParsedSql
    {
        if (isset(self::$cache[$sql])) {
            return self::$cache[$sql];
        }
        if (\count(self::$cache) >= self::CACHE_SIZE) {
            self::$cache = \array_slice(self::$cache, self::CACHE_SIZE >> 1, null, true);
        }

        return self::$cache[$sql] = self::convert($sql);
    }

    /** The conversion itself, without the cache. */
    public static function convert(string $sql): ParsedSql
    {
        $length = \strlen($sql);
        $out = '';
        $copied = 0;           // $sql[0..$copied) is already in $out
        $style = null;         // '?', ':' or '$'
        $count = 0;
        /** @var array<string, int> $names */
        $names = [];
        $i = 0;
        $single = true;        // no second statement after a top-level ';'
        while (($i += \strcspn($sql, "'\"-/\$?:;", $i)) < $length) {
            $char = $sql[$i];
            $next = $sql[$i + 1] ?? '';
            if ($char === ';') {
                $single = $single && self::onlyTrivia(\substr($sql, $i + 1));
                $i++;
            } elseif ($char === "'") {
                $i = self::skipString($sql, $i, $length);
            } elseif ($char === '"') {
                $i = self::skipTo($sql, '"', $i + 1, $length);
            } elseif ($char === '-' && $next === '-') {
                $i = self::skipTo($sql, "\n", $i + 2, $length);
            } elseif ($char === '/' && $next === '*') {
                $i = self::skipBlockComment($sql, $i, $length);
            } elseif ($char === '$') {
                $i = self::dollar($sql, $i, $length, $style, $count);
            } elseif ($char === '?') {
                $out .= \substr($sql, $copied, $i - $copied);
                if ($next === '?') {
                    $out .= '?';
                    $i += 2;
                } else {
                    self::style($style, '?');
                    $out .= '$' . ++$count;
                    $i++;
                }
                $copied = $i;
            } elseif ($char === ':' && $next === ':') {
                $i += 2;
            } elseif ($char === ':' && ($i === 0 || !self::isIdentifier($sql[$i - 1])) && self::startsName($next)) {
                $name = \substr($sql, $i + 1, \strspn($sql, self::IDENTIFIER, $i + 1));
                self::style($style, ':');
                $out .= \substr($sql, $copied, $i - $copied) . '$' . ($names[$name] ??= \count($names) + 1);
                $i += 1 + \strlen($name);
                $copied = $i;
            } else {
                $i++;
            }
        }
        // One expression, not `if ($copied === 0) … elseif ($copied < $length) $out .= …`:
        // PHP 8.2's function JIT (PETREL_JIT=function) compiled that elseif as never taken,
        // dropping the SQL after the last placeholder. substr() past the end is ''.
        $out = $copied === 0 ? $sql : $out . \substr($sql, $copied);

        $preparable = $single && \preg_match(self::PREPARABLE, $sql) === 1;

        return $style === ':'
            ? new ParsedSql($out, \count($names), \array_keys($names), $preparable)
            : new ParsedSql($out, $count, null, $preparable, $style === '$');
    }

    /** Whether $rest holds nothing but whitespace, semicolons and comments. */
    private static function onlyTrivia(string $rest): bool
    {
        $rest = \ltrim($rest, " \t\n\r\f\v;");
        while ($rest !== '') {
            if (\str_starts_with($rest, '--')) {
                $rest = \ltrim(\substr($rest, self::skipTo($rest, "\n", 2, \strlen($rest))), " \t\n\r\f\v;");
            } elseif (\str_starts_with($rest, '/*')) {
                $rest = \ltrim(\substr($rest, self::skipBlockComment($rest, 0, \strlen($rest))), " \t\n\r\f\v;");
            } else {
                return false;
            }
        }

        return true;
    }

    private static function skipString(string $sql, int $quote, int $length): int
    {
        $escapes = $quote > 0 && ($sql[$quote - 1] === 'E' || $sql[$quote - 1] === 'e')
            && ($quote === 1 || !self::isIdentifier($sql[$quote - 2]));
        if (!$escapes) {
            return self::skipTo($sql, "'", $quote + 1, $length); // '' is two adjacent strings: same result
        }
        $i = $quote + 1;
        while (($i += \strcspn($sql, "'\\", $i)) < $length) {
            if ($sql[$i] === '\\') {
                $i += 2;
            } elseif (($sql[$i + 1] ?? '') === "'") {
                $i += 2;
            } else {
                return $i + 1;
            }
        }

        return $length;
    }

    /** Index just past the next $needle at or after $from, or $length if there is none. */
    private static function skipTo(string $sql, string $needle, int $from, int $length): int
    {
        $end = $from <= $length ? \strpos($sql, $needle, $from) : false;

        return $end === false ? $length : $end + \strlen($needle);
    }

    /** Block comments nest in PostgreSQL. */
    private static function skipBlockComment(string $sql, int $i, int $length): int
    {
        $depth = 0;
        while ($i < $length) {
            $pair = \substr($sql, $i, 2);
            if ($pair === '/*') {
                $depth++;
                $i += 2;
            } elseif ($pair === '*/') {
                $i += 2;
                if (--$depth === 0) {
                    return $i;
                }
            } else {
                $i++;
            }
        }

        return $length;
    }

    /** A `$`: a native `$n` parameter, the start of a dollar-quoted string, or part of a name. */
    private static function dollar(string $sql, int $i, int $length, ?string &$style, int &$count): int
    {
        if ($i > 0 && self::isIdentifier($sql[$i - 1])) {
            return $i + 1;
        }
        $digits = \strspn($sql, '0123456789', $i + 1);
        if ($digits > 0) {
            self::style($style, '$');
            $count = \max($count, (int) \substr($sql, $i + 1, $digits));

            return $i + 1 + $digits;
        }
        if (\preg_match('/\$(?:[A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*)?\$/A', $sql, $match, 0, $i) !== 1) {
            return $i + 1;
        }

        return self::skipTo($sql, $match[0], $i + \strlen($match[0]), $length);
    }

    /** @param-out string $style */
    private static function style(?string &$style, string $found): void
    {
        if ($style !== null && $style !== $found) {
            $names = ['?' => '? (positional)', ':' => ':name (named)', '$' => '$n (native)'];
            throw new DatabaseError("The SQL mixes {$names[$style]} and {$names[$found]} placeholders; use one style per statement");
        }
        $style = $found;
    }

    private static function isIdentifier(string $char): bool
    {
        return \strspn($char, self::IDENTIFIER) === 1;
    }

    private static function startsName(string $char): bool
    {
        return $char !== '' && \strspn($char, self::IDENTIFIER) === 1 && !\ctype_digit($char);
    }
}
