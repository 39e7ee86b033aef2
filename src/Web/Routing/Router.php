<?php

declare(strict_types=1);

namespace Petrel\Web\Routing;

use Petrel\Web\Routing\Internal\PathCodec;
use Petrel\Web\Routing\Internal\RouteCompiler;

/**
 * Dispatch: a pure function of method and raw path, over routes compiled once into plain
 * arrays (see RouteCompiler). No state changes after construction, so one Router serves
 * every request of a worker concurrently.
 *
 * Matching rules:
 * - the path is matched percent-encoded, in canonical form (PathCodec): "%2F" inside a
 *   segment stays inside it, "/caf%c3%a9" matches the pattern "/café"; placeholder
 *   constraints see that encoded text; values are decoded after matching, and one that
 *   decodes to invalid UTF-8 or contains NUL gives BAD_REQUEST;
 * - strict: no trailing-slash, double-slash or dot-segment normalization ("/users/"
 *   does not match "/users"; register both, or redirect in a middleware, if you want);
 * - for a method: its static routes, then its dynamic ones in registration order; a HEAD
 *   request falls back to GET routes; then routes registered for any method ("*");
 * - no match for the method but one for others: METHOD_NOT_ALLOWED listing them (and HEAD
 *   when GET is there), sorted; no match at all: NOT_FOUND.
 */
final class Router
{
    /** @var array<string, array<string, int>> */
    private readonly array $static;

    /** @var array<string, list<array{string, array<int, array{int, list<string>}>}>> */
    private readonly array $dynamic;

    /** @var array<string, array<string, RouteResult>> the FOUND result of each static entry, as $static */
    private readonly array $staticResults;

    /**
     * @param list<Route> $routes
     * @throws RouteError for routes defined twice
     */
    public function __construct(private readonly array $routes)
    {
        [$this->static, $this->dynamic] = RouteCompiler::compile($routes);
        // A static route's result is the same for every request (no parameters), and
        // RouteResult is immutable: made once here rather than once per request.
        $results = [];
        foreach ($this->static as $method => $paths) {
            foreach ($paths as $path => $index) {
                $results[$method][$path] = RouteResult::found($routes[$index], []);
            }
        }
        $this->staticResults = $results;
    }

    /**
     * @internal for RoutingHandler, which looks a request's target up in it before dispatch():
     *     the FOUND result of each static route's path, [method][canonical path]
     * @return array<string, array<string, RouteResult>>
     */
    public function staticResults(): array
    {
        return $this->staticResults;
    }

    public function dispatch(string $method, string $path): RouteResult
    {
        // The common hit first: a path spelled exactly as a static route's (canonical) path
        // is canonical already, and has no parameters to decode.
        if (isset($this->staticResults[$method][$path])) {
            return $this->staticResults[$method][$path];
        }
        if (\strspn($path, PathCodec::RAW) !== \strlen($path)) {
            $path = PathCodec::canonicalize($path);
        }
        $hit = $this->match($method, $path)
            ?? ($method === 'HEAD' ? $this->match('GET', $path) : null)
            ?? $this->match('*', $path);
        if ($hit === null) {
            $allowed = $this->allowedMethods($path);

            return $allowed === [] ? RouteResult::notFound() : RouteResult::methodNotAllowed($allowed);
        }
        [$index, $params] = $hit;
        foreach ($params as $name => $value) {
            if (\str_contains($value, '%')) {
                $decoded = PathCodec::decode($value);
                if ($decoded === null) {
                    return RouteResult::badRequest();
                }
                $params[$name] = $decoded;
            }
        }

        return RouteResult::found($this->routes[$index], $params);
    }

    /** @return array{int, array<string, string>}|null route index and raw parameters */
    private function match(string $method, string $path): ?array
    {
        if (isset($this->static[$method][$path])) {
            return [$this->static[$method][$path], []];
        }
        foreach ($this->dynamic[$method] ?? [] as [$regex, $map]) {
            if (\preg_match($regex, $path, $m) !== 1) {
                continue;
            }
            [$index, $names] = $map[$m['MARK']];
            $params = [];
            foreach ($names as $i => $name) {
                $params[$name] = $m[$i + 1] ?? '';
            }

            return [$index, $params];
        }

        return null;
    }

    /** @return list<string> */
    private function allowedMethods(string $path): array
    {
        $allowed = [];
        foreach (\array_keys($this->static + $this->dynamic) as $method) {
            if ($this->match($method, $path) !== null) {
                $allowed[$method] = $method;
            }
        }
        if (isset($allowed['GET'])) {
            $allowed['HEAD'] = 'HEAD';
        }
        \ksort($allowed);

        return \array_values($allowed);
    }
}
