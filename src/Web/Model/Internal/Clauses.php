<?php

declare(strict_types=1);

namespace Petrel\Web\Model\Internal;

use Petrel\Web\Model\QueryError;
use Petrel\Web\Model\Raw;

/**
 * The clauses of one query as already-quoted SQL fragments with their bindings, and their
 * assembly into statements. Mutable, but only ever changed on a fresh clone (Query is
 * immutable); arrays copy on write, so a clone costs little.
 *
 * @internal
 */
final class Clauses
{
    public string $table = '';
    public bool $distinct = false;
    /** @var list<array{string, list<mixed>}> */
    public array $columns = [];
    /** @var list<array{string, list<mixed>}> */
    public array $joins = [];
    /** @var list<array{string, string, list<mixed>}> boolean ("AND"/"OR"), condition, bindings */
    public array $wheres = [];
    /** @var list<array{string, list<mixed>}> */
    public array $groups = [];
    /** @var list<array{string, string, list<mixed>}> */
    public array $havings = [];
    /** @var list<array{string, list<mixed>}> */
    public array $orders = [];
    public ?int $limit = null;
    public ?int $offset = null;

    public function __construct(public readonly Grammar $grammar)
    {
    }

    /** @return array{string, list<mixed>} */
    public function select(): array
    {
        $columns = $this->columns === [] ? [['*', []]] : $this->columns;
        [$list, $bindings] = self::join(', ', $columns);
        $sql = 'SELECT ' . ($this->distinct ? 'DISTINCT ' : '') . $list . ' FROM ' . $this->from();
        foreach ($this->joins as [$join, $more]) {
            $sql .= " {$join}";
            $bindings = [...$bindings, ...$more];
        }
        [$sql, $bindings] = $this->appendConditions($sql, $bindings, ' WHERE ', $this->wheres);
        if ($this->groups !== []) {
            [$groups, $more] = self::join(', ', $this->groups);
            $sql .= " GROUP BY {$groups}";
            $bindings = [...$bindings, ...$more];
        }
        [$sql, $bindings] = $this->appendConditions($sql, $bindings, ' HAVING ', $this->havings);
        if ($this->orders !== []) {
            [$orders, $more] = self::join(', ', $this->orders);
            $sql .= " ORDER BY {$orders}";
            $bindings = [...$bindings, ...$more];
        }

        return [$sql . $this->grammar->dialect->limitClause($this->limit, $this->offset), $bindings];
    }

    /**
     * COUNT(*) of every row the query matches, ignoring order, limit and offset; a grouped or
     * DISTINCT query is counted as a sub-query, so groups (or distinct rows) are counted.
     *
     * @return array{string, list<mixed>}
     */
    public function count(): array
    {
        $plain = clone $this;
        $plain->orders = [];
        $plain->limit = $plain->offset = null;
        $aggregate = $this->grammar->dialect->quoteIdentifier('aggregate');
        if ($this->groups === [] && !$this->distinct) {
            $plain->columns = [["COUNT(*) AS {$aggregate}", []]];

            return $plain->select();
        }
        [$inner, $bindings] = $plain->select();

        return ["SELECT COUNT(*) AS {$aggregate} FROM ({$inner}) AS " . $this->grammar->dialect->quoteIdentifier('counted'), $bindings];
    }

    /**
     * @param non-empty-list<array<string, mixed>> $rows all with the same columns
     * @param string|null $returning a generated key to return, on dialects that support RETURNING
     * @return array{string, list<mixed>}
     */
    public function insert(array $rows, ?string $returning = null): array
    {
        $columns = \array_keys($rows[0]);
        $returning = $returning === null || !$this->grammar->dialect->supportsReturning() ? '' : ' RETURNING ' . $this->grammar->identifier($returning);
        if ($columns === []) {
            if (\count($rows) > 1) {
                throw new QueryError('Only one row of default values can be inserted at a time');
            }

            return [$this->grammar->dialect->insertDefaultValues($this->from()) . $returning, []];
        }
        $tuples = [];
        $bindings = [];
        foreach ($rows as $i => $row) {
            if (\count($row) !== \count($columns) || \array_diff_key(\array_flip($columns), $row) !== []) {
                throw new QueryError("Row {$i} of the insert has different columns than row 0");
            }
            $values = [];
            foreach ($columns as $column) {
                [$values[], $more] = $this->grammar->value($row[$column]);
                $bindings = [...$bindings, ...$more];
            }
            $tuples[] = '(' . \implode(', ', $values) . ')';
        }
        $names = \implode(', ', \array_map(fn (string $c): string => $this->grammar->identifier($c), $columns));

        return ["INSERT INTO {$this->from()} ({$names}) VALUES " . \implode(', ', $tuples) . $returning, $bindings];
    }

    /**
     * @param array<string, mixed> $values column => value (a Raw for expressions such as `n + 1`)
     * @return array{string, list<mixed>}
     */
    public function update(array $values): array
    {
        $this->assertSimple('update');
        if ($values === []) {
            throw new QueryError('update() needs at least one column to set');
        }
        $sets = [];
        $bindings = [];
        foreach ($values as $column => $value) {
            [$sql, $more] = $this->grammar->value($value);
            $sets[] = $this->grammar->identifier((string) $column) . " = {$sql}";
            $bindings = [...$bindings, ...$more];
        }

        return $this->appendConditions("UPDATE {$this->from()} SET " . \implode(', ', $sets), $bindings, ' WHERE ', $this->wheres);
    }

    /** @return array{string, list<mixed>} */
    public function delete(): array
    {
        $this->assertSimple('delete');

        return $this->appendConditions("DELETE FROM {$this->from()}", [], ' WHERE ', $this->wheres);
    }

    /**
     * Joins conditions with their AND/OR (the first one's is dropped).
     *
     * @param list<array{string, string, list<mixed>}> $conditions
     * @return array{string, list<mixed>}
     */
    public static function conditions(array $conditions): array
    {
        $sql = '';
        $bindings = [];
        foreach ($conditions as $i => [$boolean, $condition, $more]) {
            $sql .= ($i === 0 ? '' : " {$boolean} ") . $condition;
            $bindings = [...$bindings, ...$more];
        }

        return [$sql, $bindings];
    }

    /**
     * One row (column => value) or a list of rows, as a list of rows.
     *
     * @param array<mixed> $rows
     * @return non-empty-list<array<string, mixed>>
     */
    public static function rows(array $rows): array
    {
        if ($rows === []) {
            throw new QueryError('Nothing to insert (an empty row of defaults is insert([[]]))');
        }
        if (!\array_is_list($rows)) {
            $rows = [$rows];
        }
        foreach ($rows as $row) {
            if (!\is_array($row) || ($row !== [] && \array_is_list($row))) {
                throw new QueryError('insert() takes a row (column => value) or a list of rows');
            }
        }

        /** @var non-empty-list<array<string, mixed>> $rows */
        return $rows;
    }

    /**
     * @param list<array{string, list<mixed>}> $fragments
     * @return array{string, list<mixed>}
     */
    private static function join(string $glue, array $fragments): array
    {
        return [
            \implode($glue, \array_column($fragments, 0)),
            \array_merge([], ...\array_column($fragments, 1)),
        ];
    }

    /**
     * @param list<mixed> $bindings
     * @param list<array{string, string, list<mixed>}> $conditions
     * @return array{string, list<mixed>}
     */
    private function appendConditions(string $sql, array $bindings, string $keyword, array $conditions): array
    {
        if ($conditions === []) {
            return [$sql, $bindings];
        }
        [$condition, $more] = self::conditions($conditions);

        return [$sql . $keyword . $condition, [...$bindings, ...$more]];
    }

    private function from(): string
    {
        return $this->table !== '' ? $this->table : throw new QueryError('The query has no table: call table() first');
    }

    private function assertSimple(string $statement): void
    {
        if ($this->joins !== [] || $this->groups !== [] || $this->havings !== [] || $this->orders !== [] || $this->limit !== null || $this->offset !== null) {
            throw new QueryError("{$statement}() takes only where() clauses (joins, grouping, ordering, limit and offset are not portable there)");
        }
    }
}
