<?php

declare(strict_types=1);

namespace Petrel\Web\Model\Dialect;

/** PostgreSQL: double-quoted identifiers, ILIKE, generated keys through INSERT … RETURNING. */
final class PgsqlDialect implements Dialect
{
    public function name(): string
    {
        return 'pgsql';
    }

    public function quoteIdentifier(string $name): string
    {
        return '"' . \str_replace('"', '""', $name) . '"';
    }

    public function operators(): array
    {
        return ['=', '<', '>', '<=', '>=', '<>', '!=', 'like', 'not like', 'ilike', 'not ilike', 'in', 'not in', 'is', 'is not'];
    }

    public function limitClause(?int $limit, ?int $offset): string
    {
        return ($limit === null ? '' : " LIMIT {$limit}") . ($offset === null ? '' : " OFFSET {$offset}");
    }

    public function insertDefaultValues(string $table): string
    {
        return "INSERT INTO {$table} DEFAULT VALUES";
    }

    public function supportsReturning(): bool
    {
        return true;
    }
}
