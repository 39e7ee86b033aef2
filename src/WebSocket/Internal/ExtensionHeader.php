<?php

declare(strict_types=1);

namespace Petrel\WebSocket\Internal;

/**
 * Parses Sec-WebSocket-Extensions (RFC 6455 §9.1): comma-separated extensions, each a
 * token followed by ";"-separated parameters, a parameter a token with an optional value
 * (token or quoted string). Names are lowercased. A duplicate parameter makes that
 * extension's parameters unusable, marked by a '' entry that no extension accepts.
 */
final class ExtensionHeader
{
    private function __construct()
    {
    }

    /** @return list<array{string, array<string, string|true>}> [name, parameters] in order */
    public static function parse(string $header): array
    {
        $extensions = [];
        foreach (\explode(',', $header) as $item) {
            $parts = \array_map('trim', \explode(';', $item));
            $name = \strtolower(\array_shift($parts));
            if ($name === '') {
                continue;
            }
            $params = [];
            foreach ($parts as $part) {
                [$key, $value] = \array_pad(\explode('=', $part, 2), 2, null);
                $key = \strtolower(\trim((string) $key));
                $value = $value === null ? true : \trim(\trim($value), '"');
                if ($key === '' || isset($params[$key])) {
                    $params[''] = true; // malformed or duplicate: no extension accepts ''
                    continue;
                }
                $params[$key] = $value;
            }
            $extensions[] = [$name, $params];
        }

        return $extensions;
    }
}
