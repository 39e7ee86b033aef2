<?php

declare(strict_types=1);

namespace Petrel\Tests\Support;

final class RawResponse
{
    /** @param array<string, list<string>> $headers lowercase names */
    public function __construct(
        public readonly int $status,
        public readonly array $headers,
        public readonly string $body,
    ) {
    }

    public function header(string $name): ?string
    {
        $values = $this->headers[\strtolower($name)] ?? null;

        return $values === null ? null : \implode(', ', $values);
    }
}
