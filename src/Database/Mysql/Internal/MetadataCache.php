<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/**
 * Remembers parsed column definitions, and the row decoder built from them, keyed by the
 * exact bytes of the definition packets. A connection meets the same few result shapes
 * again and again (one per query text), and parsing them costs more than decoding the rows
 * of a small result; an exact-bytes key can never return stale metadata.
 *
 * Give each connection its own (ResultDecoder takes it as an argument). Bounded: past the
 * capacity the oldest entry is dropped.
 */
final class MetadataCache
{
    public const DEFAULT_CAPACITY = 128;

    /** @var array<string, array{list<ColumnDefinition>, RowDecoder}> */
    private array $entries = [];

    public function __construct(private readonly int $capacity = self::DEFAULT_CAPACITY)
    {
        if ($capacity < 1) {
            throw new \ValueError('MetadataCache capacity must be positive');
        }
    }

    /** @return array{list<ColumnDefinition>, RowDecoder}|null */
    public function get(string $key): ?array
    {
        return $this->entries[$key] ?? null;
    }

    /** @param list<ColumnDefinition> $columns */
    public function put(string $key, array $columns, RowDecoder $decoder): void
    {
        if (\count($this->entries) >= $this->capacity) {
            unset($this->entries[array_key_first($this->entries)]);
        }
        $this->entries[$key] = [$columns, $decoder];
    }

    /** @phpstan-impure */
    public function count(): int
    {
        return \count($this->entries);
    }

    public function clear(): void
    {
        $this->entries = [];
    }
}
