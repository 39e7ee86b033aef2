<?php

declare(strict_types=1);

namespace Petrel\Web\Routing\Internal;

use Petrel\Web\Routing\Route;
use Petrel\Web\Routing\RouteError;

/**
 * Compiles routes into the router's plain arrays, once per worker (FastRoute's "mark based"
 * data generator):
 *
 * - static: [method][canonical path] => route index, for variants without placeholders;
 * - dynamic: [method] => list of [regex, [mark => [route index, parameter names]]], where
 *   each regex combines up to CHUNK_SIZE variants as "^(?|alt1(*MARK:0)|alt2(*MARK:1)…)\z":
 *   one preg_match per chunk instead of one per route, and the MARK names the variant.
 *
 * Methods are kept as given ("*" for any()). Static beats dynamic; dynamic variants are
 * tried in registration order. The same method and path registered twice is an error.
 *
 * @internal
 */
final class RouteCompiler
{
    /** Variants per combined regex; see bench/micro/router.php. */
    public const CHUNK_SIZE = 20;

    /**
     * @param list<Route> $routes
     * @return array{
     *     array<string, array<string, int>>,
     *     array<string, list<array{string, array<int, array{int, list<string>}>}>>
     * }
     */
    public static function compile(array $routes): array
    {
        $static = [];
        $dynamic = [];
        $seen = [];
        foreach ($routes as $index => $route) {
            foreach ($route->variants() as $variant) {
                $isStatic = \count($variant) === 1 && \is_string($variant[0]);
                $regex = $isStatic ? $variant[0] : self::variantRegex($variant);
                foreach ($route->getMethods() as $method) {
                    $key = $method . ' ' . ($isStatic ? 's' : 'd') . $regex;
                    if (isset($seen[$key])) {
                        throw new RouteError(\sprintf(
                            'Route %s %s is defined twice (the second time as "%s")',
                            $method,
                            $seen[$key],
                            $route->getPattern(),
                        ));
                    }
                    $seen[$key] = $routes[$index]->getPattern();
                    if ($isStatic) {
                        $static[$method][$regex] = $index;
                    } else {
                        $dynamic[$method][] = [$regex, $index, RouteParser::names($variant)];
                    }
                }
            }
        }

        $chunked = [];
        foreach ($dynamic as $method => $variants) {
            $chunked[$method] = self::chunk($variants);
        }

        return [$static, $chunked];
    }

    /** @param list<string|array{string, string}> $variant */
    public static function variantRegex(array $variant): string
    {
        $regex = '';
        foreach ($variant as $part) {
            $regex .= \is_string($part) ? \preg_quote($part, "\x01") : '(' . $part[1] . ')';
        }

        return $regex;
    }

    /**
     * @param list<array{string, int, list<string>}> $variants
     * @return list<array{string, array<int, array{int, list<string>}>}>
     */
    private static function chunk(array $variants): array
    {
        $chunks = [];
        foreach (\array_chunk($variants, self::CHUNK_SIZE) as $chunk) {
            $alternatives = [];
            $map = [];
            foreach ($chunk as $mark => [$regex, $index, $names]) {
                $alternatives[] = $regex . '(*MARK:' . $mark . ')';
                $map[$mark] = [$index, $names];
            }
            $chunks[] = ["\x01^(?|" . \implode('|', $alternatives) . ")\\z\x01", $map];
        }

        return $chunks;
    }
}
