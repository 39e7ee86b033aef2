<?php

declare(strict_types=1);

namespace Petrel\Web\Model\Dialect;

/**
 * What differs between the SQL of MariaDB/MySQL, PostgreSQL and SQLite, as far as the
 * query builder cares. Implementations are stateless and immutable.
 */
interface Dialect
{
    /** "mysql", "pgsql" or "sqlite", as Database::driverName() spells it. */
    public function name(): string;

    /**
     * Quotes one identifier part (a table, column or alias name; never a dotted path),
     * doubling any quote character inside it, so every string is a safe identifier.
     */
    public function quoteIdentifier(string $name): string;

    /**
     * The comparison operators this dialect accepts, lower case, single-spaced. Anything
     * else given to the builder is refused (operators are never interpolated unchecked).
     *
     * @return list<string>
     */
    public function operators(): array;

    /** " LIMIT n OFFSET m" (leading space), or "" when both are null. */
    public function limitClause(?int $limit, ?int $offset): string;

    /** An INSERT of one row made of default values only, into an already-quoted table. */
    public function insertDefaultValues(string $table): string;

    /** Whether INSERT … RETURNING is used to read generated keys. */
    public function supportsReturning(): bool;
}
