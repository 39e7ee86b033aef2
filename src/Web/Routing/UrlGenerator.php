<?php

declare(strict_types=1);

namespace Petrel\Web\Routing;

use Petrel\Web\Routing\Internal\RouteParser;

/**
 * Builds paths for named routes: url('user', ['id' => 5], ['tab' => 'posts']) gives
 * "/users/5?tab=posts". Values are percent-encoded (rawurlencode, so "/" in a value becomes
 * "%2F" and comes back decoded as the same parameter), then checked against the
 * placeholder's constraint — the text the router would match; when the constraint refuses
 * it, the value with "!$&'()*+,;=:@" left raw (as browsers send them) is tried. For
 * optional segments the shortest variant holding every given parameter is used. A missing,
 * unknown or non-matching parameter is a RouteError: a broken link is a bug, not a runtime
 * condition.
 */
final class UrlGenerator
{
    /**
     * rawurlencode()'s escapes of the characters a path segment may hold raw (RFC 3986
     * pchar: sub-delims, ":" and "@"), tried unescaped when a constraint refuses the escapes.
     */
    private const RAW_IN_SEGMENT = ['%21' => '!', '%24' => '$', '%26' => '&', '%27' => "'", '%28' => '(', '%29' => ')',
        '%2A' => '*', '%2B' => '+', '%2C' => ',', '%3B' => ';', '%3D' => '=', '%3A' => ':', '%40' => '@'];

    /** @var array<string, Route> */
    private readonly array $named;
    /** @var array<string, string> route name => its path without parameters (links to fixed pages, built once) */
    private array $plainPaths = [];

    /**
     * @param list<Route> $routes
     * @throws RouteError when two routes have the same name
     */
    public function __construct(array $routes)
    {
        $named = [];
        foreach ($routes as $route) {
            $name = $route->getName();
            if ($name === null) {
                continue;
            }
            if (isset($named[$name])) {
                throw new RouteError(\sprintf(
                    'Route name "%s" is used twice: %s and %s',
                    $name,
                    $named[$name]->getPattern(),
                    $route->getPattern(),
                ));
            }
            $named[$name] = $route;
        }
        $this->named = $named;
    }

    /**
     * @param array<string, string|int|float|\Stringable> $params placeholder values, not encoded
     * @param array<mixed> $query appended as "?…" (RFC 3986 encoding) when not empty
     * @throws RouteError for an unknown route name or unusable parameters
     */
    public function generate(string $name, array $params = [], array $query = []): string
    {
        if ($params === [] && $query === []) {
            return $this->plainPaths[$name] ??= $this->build($name, [], []);
        }

        return $this->build($name, $params, $query);
    }

    /**
     * @param array<string, string|int|float|\Stringable> $params
     * @param array<mixed> $query
     */
    private function build(string $name, array $params, array $query): string
    {
        $route = $this->named[$name] ?? throw new RouteError("No route is named \"{$name}\"");
        $variants = $route->variants();
        $describe = "route \"{$name}\" ({$route->getPattern()})";
        $given = \array_map('strval', \array_keys($params));
        $unknown = \array_diff($given, RouteParser::names($variants[\count($variants) - 1]));
        if ($unknown !== []) {
            throw new RouteError(\sprintf('Unknown parameter(s) "%s" for %s', \implode('", "', $unknown), $describe));
        }
        foreach ($variants as $variant) {
            if (\array_diff($given, RouteParser::names($variant)) === []) {
                break;
            }
        }
        $missing = \array_diff(RouteParser::names($variant), $given);
        if ($missing !== []) {
            throw new RouteError(\sprintf('Missing parameter(s) "%s" for %s', \implode('", "', $missing), $describe));
        }

        $path = '';
        foreach ($variant as $part) {
            $path .= \is_string($part) ? $part : self::encode($part[0], $part[1], $params[$part[0]], $describe);
        }
        // A segment "." or ".." (a parameter's value) would be resolved away by the client
        // (RFC 3986 §5.2.4: /users/.. is /): encoded, the router decodes it back.
        if (\str_contains($path, '/.')) {
            $path = (string) \preg_replace_callback('~(?<=/)\.\.?(?=/|$)~', static fn (array $dots): string => \str_repeat('%2E', \strlen($dots[0])), $path);
        }
        if ($query === []) {
            return $path;
        }
        $queryString = \http_build_query($query, '', '&', \PHP_QUERY_RFC3986);

        return $queryString === '' ? $path : $path . '?' . $queryString;
    }

    private static function encode(string $name, string $regex, mixed $value, string $describe): string
    {
        if (!\is_string($value) && !\is_int($value) && !\is_float($value) && !$value instanceof \Stringable) {
            $type = \get_debug_type($value);
            throw new RouteError("Parameter \"{$name}\" for {$describe} must be a string or number, got {$type}");
        }
        $encoded = \rawurlencode((string) $value);
        if (\preg_match("\x01^(?:{$regex})\\z\x01", $encoded) !== 1) {
            // The router keeps these raw (PathCodec's canonical form), so a constraint that
            // allows them ("[a-z,]+", "[^@/]+@.+") sees them raw: "/tags/a,b" matches, and
            // its link must be that, not the "/tags/a%2Cb" no route matches.
            $encoded = \strtr($encoded, self::RAW_IN_SEGMENT);
        }
        if (\preg_match("\x01^(?:{$regex})\\z\x01", $encoded) !== 1) {
            throw new RouteError(\sprintf(
                'Parameter "%s" for %s must match %s, got "%s"%s',
                $name,
                $describe,
                $regex,
                (string) $value,
                $encoded !== (string) $value ? " (encoded \"{$encoded}\")" : '',
            ));
        }

        return $encoded;
    }
}
