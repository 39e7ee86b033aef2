<?php

declare(strict_types=1);

namespace Petrel\Database\Internal;

/**
 * The server-side prepared statements of one connection, by SQL text, least recently used
 * first: what the MySQL and PostgreSQL clients both keep (a statement object, a statement
 * name). get() counts as a use; past the capacity, put() hands back the statement it
 * dropped, for the caller to free on the server (each holds server memory).
 *
 * @internal
 * @template T
 */
final class StatementCache
{
    /** @var array<string, T> */
    private array $entries = [];

    public function __construct(public readonly int $capacity)
    {
    }

    /** @return T|null */
    public function get(string $sql): mixed
    {
        $statement = $this->entries[$sql] ?? null;
        if ($statement !== null && \array_key_last($this->entries) !== $sql) {
            unset($this->entries[$sql]); // move to the most recently used end
            $this->entries[$sql] = $statement;
        }

        return $statement;
    }

    /**
     * @param T $statement
     * @return T|null the statement evicted to make room
     */
    public function put(string $sql, mixed $statement): mixed
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

    /** @return T|null the statement that was cached for $sql */
    public function remove(string $sql): mixed
    {
        $statement = $this->entries[$sql] ?? null;
        unset($this->entries[$sql]);

        return $statement;
    }

    /** @return list<T> everything, removed from the cache */
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
