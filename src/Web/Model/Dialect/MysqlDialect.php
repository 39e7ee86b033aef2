<?php

declare(strict_types=1);

namespace Petrel\Web\Model\Dialect;

/** MariaDB and MySQL: backtick identifiers, generated keys from LAST_INSERT_ID(). */
final class MysqlDialect implements Dialect
{
    /** MySQL has no OFFSET without LIMIT; this is its documented "no limit". */
    private const NO_LIMIT = '18446744073709551615';

    public function name(): string
    {
        return 'mysql';
    }

    public function quoteIdentifier(string $name): string
    {
        return '`' . \str_replace('`', '``', $name) . '`';
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
        $sql = ' LIMIT ' . ($limit ?? self::NO_LIMIT);

        return $offset === null ? $sql : "{$sql} OFFSET {$offset}";
    }

    public function insertDefaultValues(string $table): string
    {
        return "INSERT INTO {$table} () VALUES ()";
    }

    public function supportsReturning(): bool
    {
        return false;
    }
}
