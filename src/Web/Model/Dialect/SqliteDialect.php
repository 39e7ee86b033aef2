<?php

declare(strict_types=1);

namespace Petrel\Web\Model\Dialect;

/** SQLite: double-quoted identifiers, generated keys from last_insert_rowid(). */
final class SqliteDialect implements Dialect
{
    public function name(): string
    {
        return 'sqlite';
    }

    public function quoteIdentifier(string $name): string
    {
        return '"' . \str_replace('"', '""', $name) . '"';
    }

    public function operators(): array
    {
        return ['=', '<', '>', '<=', '>=', '<>', '!=', 'like', 'not like', 'in', 'not in', 'is', 'is not'];
    }

    public function limitClause(?int $limit, ?int $offset): string
    {
        if ($limit === null && $offset === null) {
            return '';
        }
        $sql = ' LIMIT ' . ($limit ?? -1); // SQLite has no OFFSET without LIMIT; -1 means none

        return $offset === null ? $sql : "{$sql} OFFSET {$offset}";
    }

    public function insertDefaultValues(string $table): string
    {
        return "INSERT INTO {$table} DEFAULT VALUES";
    }

    public function supportsReturning(): bool
    {
        return false;
    }
}
