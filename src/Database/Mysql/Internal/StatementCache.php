<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/**
 * The prepared statements of one connection, by SQL text, least recently used first. Past
 * the capacity, put() hands back the statement it dropped, for the caller to close on the
 * server (each one holds server memory, and max_prepared_stmt_count is global).
 *
 * @internal
 */
final class StatementCache
{
    /** @var array<string, PreparedStatement> */
    private array $entries = [];

    public function __construct(public readonly int $capacity)
    {
    }

    public function get(string $sql): ?PreparedStatement
    {
        $statement = $this->entries[$sql] ?? null;
        if ($statement !== null && \array_key_last($this->entries) !== $sql) {
            unset($this->entries[$sql]); // move to the most recently used end
            $this->entries[$sql] = $statement;
        }

        return $statement;
    }

    /** @return PreparedStatement|null the statement evicted to make room */
    public function put(string $sql, PreparedStatement $statement): ?PreparedStatement
    {
        $evicted = null;
        if (\count($this->entries) >= $this->capacity) {
            $oldest = \array_key_first($this->entries);
            if ($oldest !== null) {
                $evicted = $this->entries[$oldest];
                unset($this->entries[$oldest]);
            }
        }
        $this->entries[$sql] = $statement;

        return $evicted;
    }

    /** @return list<PreparedStatement> everything, removed from the cache */
    public function clear(): array
    {
        $all = \array_values($this->entries);
        $this->entries = [];

        return $all;
    }

    public function count(): int
    {
        return \count($this->entries);
    }
}
