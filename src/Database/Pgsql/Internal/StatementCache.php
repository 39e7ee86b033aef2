<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

/**
 * Which statements a connection keeps prepared on the server, by SQL. A statement is
 * prepared the second time it runs (one-off SQL never is), then executed by name: the
 * server skips parsing and planning, which on short queries is about half their cost.
 * At most $capacity are kept; the least recently used one is evicted (and deallocated).
 *
 * @internal
 */
final class StatementCache
{
    private const SEEN_LIMIT = 4096;

    /** @var array<string, string> SQL => statement name, least recently used first */
    private array $names = [];
    /** @var array<string, true> SQL run once, not prepared yet */
    private array $seen = [];

    public function __construct(private readonly int $capacity)
    {
    }

    public function lookup(string $sql): ?string
    {
        $name = $this->names[$sql] ?? null;
        if ($name !== null && \array_key_last($this->names) !== $sql) {
            unset($this->names[$sql]);
            $this->names[$sql] = $name; // most recently used last
        }

        return $name;
    }

    /** True the second time $sql is asked about: time to prepare it. */
    public function wantsPrepared(string $sql): bool
    {
        if (isset($this->seen[$sql])) {
            unset($this->seen[$sql]);

            return true;
        }
        if (\count($this->seen) >= self::SEEN_LIMIT) {
            $this->seen = [];
        }
        $this->seen[$sql] = true;

        return false;
    }

    /** Records $name for $sql; returns the name of the statement evicted to make room, if any. */
    public function add(string $sql, string $name): ?string
    {
        $evicted = null;
        if (\count($this->names) >= $this->capacity) {
            $oldest = \array_key_first($this->names);
            $evicted = $this->names[$oldest];
            unset($this->names[$oldest]);
        }
        $this->names[$sql] = $name;

        return $evicted;
    }

    public function remove(string $sql): void
    {
        unset($this->names[$sql]);
    }
}
