<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

/**
 * Reads Cookie request headers (RFC 6265 §5.4): "a=1; b=2" pairs, quoted values unquoted
 * and percent-decoded (the inverse of Cookie::toHeaderValue()); the first of several
 * cookies with one name wins, as it is the most specific one.
 *
 * @internal
 */
final class CookieHeader
{
    /**
     * @param list<string> $headers values of the Cookie header fields
     * @return array<string, string>
     */
    public static function parse(array $headers): array
    {
        $cookies = [];
        foreach ($headers as $header) {
            foreach (\explode(';', $header) as $pair) {
                $equals = \strpos($pair, '=');
                if ($equals === false) {
                    continue;
                }
                $name = \trim(\substr($pair, 0, $equals), " \t");
                if ($name === '' || isset($cookies[$name])) {
                    continue;
                }
                $value = \trim(\substr($pair, $equals + 1), " \t");
                if (\strlen($value) >= 2 && $value[0] === '"' && \str_ends_with($value, '"')) {
                    $value = \substr($value, 1, -1);
                }
                $cookies[$name] = \rawurldecode($value);
            }
        }

        return $cookies;
    }
}
