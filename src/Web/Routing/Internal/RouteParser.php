<?php

declare(strict_types=1);

namespace Petrel\Web\Routing\Internal;

use Petrel\Web\Routing\RouteError;

/**
 * Parses a route pattern into its variants, FastRoute-style: "/blog[/{page:\d+}]" is the
 * two variants "/blog" and "/blog/{page}". Each variant is a list of parts: a literal
 * (already in PathCodec's canonical form) or a [name, regex] placeholder.
 *
 * Syntax: "{name}" matches one non-empty segment ([^/]+); "{name:regex}" uses the regex,
 * which sees the percent-encoded text and may contain braces ("\d{4}") but no capturing
 * groups; "[...]" makes the rest of the pattern optional and may nest, at the end only.
 *
 * @internal
 */
final class RouteParser
{
    public const DEFAULT_REGEX = '[^/]+';

    /** A placeholder; the regex may hold balanced braces. */
    private const PLACEHOLDER = '\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(?::\s*([^{}]*(?:\{(?-1)\}[^{}]*)*))?\}';

    /**
     * @return non-empty-list<list<string|array{string, string}>> shortest variant first
     * @throws RouteError for a malformed pattern
     */
    public static function parse(string $pattern): array
    {
        if (!\str_starts_with($pattern, '/')) {
            throw new RouteError("Route pattern \"{$pattern}\" must start with \"/\"");
        }
        $withoutClosing = \rtrim($pattern, ']');
        $optionals = \strlen($pattern) - \strlen($withoutClosing);
        $segments = \preg_split('~' . self::PLACEHOLDER . '(*SKIP)(*F)|\[~', $withoutClosing);
        \assert(\is_array($segments));
        if ($optionals !== \count($segments) - 1) {
            if (\preg_match('~' . self::PLACEHOLDER . '(*SKIP)(*F)|\]~', $withoutClosing) === 1) {
                throw new RouteError("Route pattern \"{$pattern}\": optional segments can only occur at the end");
            }
            throw new RouteError("Route pattern \"{$pattern}\": unbalanced \"[\" and \"]\"");
        }

        $variants = [];
        $current = '';
        foreach ($segments as $n => $segment) {
            if ($segment === '' && $n !== 0) {
                throw new RouteError("Route pattern \"{$pattern}\": empty optional part");
            }
            $current .= $segment;
            $variants[] = self::parsePlaceholders($pattern, $current);
        }
        \assert($variants !== []);

        return $variants;
    }

    /**
     * The names of a variant's placeholders, in order.
     *
     * @param list<string|array{string, string}> $variant
     * @return list<string>
     */
    public static function names(array $variant): array
    {
        $names = [];
        foreach ($variant as $part) {
            if (\is_array($part)) {
                $names[] = $part[0];
            }
        }

        return $names;
    }

    /** @return list<string|array{string, string}> */
    private static function parsePlaceholders(string $pattern, string $text): array
    {
        if (\preg_match_all('~' . self::PLACEHOLDER . '~', $text, $matches, \PREG_OFFSET_CAPTURE | \PREG_SET_ORDER) === 0) {
            self::checkLiteral($pattern, $text);

            return [PathCodec::canonicalize($text)];
        }
        $parts = [];
        $offset = 0;
        foreach ($matches as $match) {
            if ($match[0][1] > $offset) {
                $literal = \substr($text, $offset, $match[0][1] - $offset);
                self::checkLiteral($pattern, $literal);
                $parts[] = PathCodec::canonicalize($literal);
            }
            $name = $match[1][0];
            $regex = isset($match[2]) ? \trim($match[2][0]) : self::DEFAULT_REGEX;
            $parts[] = [$name, self::checkRegex($pattern, $name, $regex === '' ? self::DEFAULT_REGEX : $regex)];
            $offset = $match[0][1] + \strlen($match[0][0]);
        }
        if ($offset < \strlen($text)) {
            $literal = \substr($text, $offset);
            self::checkLiteral($pattern, $literal);
            $parts[] = PathCodec::canonicalize($literal);
        }
        self::checkDuplicates($pattern, $parts);

        return $parts;
    }

    /** @param list<string|array{string, string}> $parts */
    private static function checkDuplicates(string $pattern, array $parts): void
    {
        $seen = [];
        foreach ($parts as $part) {
            if (\is_array($part)) {
                if (isset($seen[$part[0]])) {
                    throw new RouteError("Route pattern \"{$pattern}\": parameter \"{$part[0]}\" appears twice");
                }
                $seen[$part[0]] = true;
            }
        }
    }

    private static function checkLiteral(string $pattern, string $literal): void
    {
        if (\strpbrk($literal, '{}[]?#') !== false) {
            throw new RouteError(
                "Route pattern \"{$pattern}\": unexpected \"{$literal}\" (a malformed placeholder, or \"?\"/\"#\" in a path)",
            );
        }
    }

    private static function checkRegex(string $pattern, string $name, string $regex): string
    {
        $matches = [];
        $result = @\preg_match("\x01(?:{$regex})|\x01", '', $matches, \PREG_UNMATCHED_AS_NULL);
        if ($result === false) {
            $why = \error_get_last()['message'] ?? \preg_last_error_msg();
            throw new RouteError("Route pattern \"{$pattern}\": invalid regex for \"{$name}\": {$why}");
        }
        if (\count($matches) > 1) {
            throw new RouteError("Route pattern \"{$pattern}\": the regex for \"{$name}\" has a capturing group; use (?:...)");
        }

        return $regex;
    }
}
