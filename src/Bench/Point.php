<?php

declare(strict_types=1);

namespace Petrel\Bench;

/**
 * One point of a scenario: a load of $connections on $path of the server $server, shown
 * in the report as series $series at $x (e.g. series "coroutine", x "8 workers, c=300").
 *
 * $expect is a piece of the body the server must answer before it is measured, so that a
 * benchmark of an error page cannot pass for a result.
 */
final class Point
{
    /** @param array<string, int|string> $params the knobs of this point, kept in results.json */
    public function __construct(
        public readonly string $server,
        public readonly string $series,
        public readonly string $x,
        public readonly string $path,
        public readonly int $connections,
        public readonly string $expect,
        public readonly array $params = [],
    ) {
    }

    public function describe(): string
    {
        return $this->x === '' ? $this->series : "{$this->series}, {$this->x}";
    }
}
