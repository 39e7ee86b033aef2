<?php

declare(strict_types=1);

namespace Petrel\Web\Routing;

/**
 * What the router made of a method and path: FOUND (route + decoded parameters),
 * NOT_FOUND, METHOD_NOT_ALLOWED (with the methods the path does answer, HEAD included
 * when GET is), or BAD_REQUEST (a parameter that decodes to invalid UTF-8 or holds NUL).
 *
 * The App stores the FOUND result on the request as the attribute RouteResult::class.
 */
final class RouteResult
{
    public const FOUND = 0;
    public const NOT_FOUND = 1;
    public const METHOD_NOT_ALLOWED = 2;
    public const BAD_REQUEST = 3;

    /**
     * @param self::FOUND|self::NOT_FOUND|self::METHOD_NOT_ALLOWED|self::BAD_REQUEST $status
     * @param array<string, string> $params
     * @param list<string> $allowedMethods
     */
    private function __construct(
        public readonly int $status,
        public readonly ?Route $route = null,
        public readonly array $params = [],
        public readonly array $allowedMethods = [],
    ) {
    }

    /** @param array<string, string> $params decoded values, by placeholder name */
    public static function found(Route $route, array $params): self
    {
        return new self(self::FOUND, $route, $params);
    }

    public static function notFound(): self
    {
        return new self(self::NOT_FOUND);
    }

    /** @param list<string> $allowedMethods */
    public static function methodNotAllowed(array $allowedMethods): self
    {
        return new self(self::METHOD_NOT_ALLOWED, allowedMethods: $allowedMethods);
    }

    public static function badRequest(): self
    {
        return new self(self::BAD_REQUEST);
    }

    public function isFound(): bool
    {
        return $this->status === self::FOUND;
    }

    /** A decoded route parameter; $default when the pattern has none of that name (or it was left out). */
    public function param(string $name, ?string $default = null): ?string
    {
        return $this->params[$name] ?? $default;
    }
}
