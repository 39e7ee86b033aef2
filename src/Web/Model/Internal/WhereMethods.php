<?php

declare(strict_types=1);

namespace Petrel\Web\Model\Internal;

use Closure;
use Petrel\Web\Model\Query;
use Petrel\Web\Model\QueryError;
use Petrel\Web\Model\Raw;

/**
 * The where() family of Query, kept apart to keep Query readable. Only Query uses it.
 *
 * @internal
 * @template TRow
 */
trait WhereMethods
{
    /**
     * Adds a condition, ANDed with the ones before:
     * where('name', 'Bob') (=) · where('age', '>', 18) · where('id', 'in', [1, 2]) ·
     * where('deleted_at', null) (IS NULL) · where(['a' => 1, 'b' => 2]) ·
     * where(fn (Query $q) => $q->where(…)->orWhere(…)) (parenthesised group) · where(Raw).
     *
     * @param string|Raw|Closure(Query<TRow>): Query<TRow>|array<string, mixed> $column
     */
    public function where(string|Raw|Closure|array $column, mixed $operator = null, mixed $value = null): static
    {
        return $this->addWhere('AND', false, \func_num_args(), $column, $operator, $value);
    }

    /** @param string|Raw|Closure(Query<TRow>): Query<TRow>|array<string, mixed> $column */
    public function orWhere(string|Raw|Closure|array $column, mixed $operator = null, mixed $value = null): static
    {
        return $this->addWhere('OR', false, \func_num_args(), $column, $operator, $value);
    }

    /**
     * AND NOT (condition or group).
     *
     * @param string|Raw|Closure(Query<TRow>): Query<TRow>|array<string, mixed> $column
     */
    public function whereNot(string|Raw|Closure|array $column, mixed $operator = null, mixed $value = null): static
    {
        return $this->addWhere('AND', true, \func_num_args(), $column, $operator, $value);
    }

    /** @param string|Raw|Closure(Query<TRow>): Query<TRow>|array<string, mixed> $column */
    public function orWhereNot(string|Raw|Closure|array $column, mixed $operator = null, mixed $value = null): static
    {
        return $this->addWhere('OR', true, \func_num_args(), $column, $operator, $value);
    }

    /** @param array<mixed>|Query<mixed>|Raw $values a list, a sub-query or a Raw; [] matches nothing */
    public function whereIn(string|Raw $column, array|Query|Raw $values): static
    {
        return $this->where($column, 'in', $values);
    }

    /** @param array<mixed>|Query<mixed>|Raw $values [] matches everything */
    public function whereNotIn(string|Raw $column, array|Query|Raw $values): static
    {
        return $this->where($column, 'not in', $values);
    }

    public function whereNull(string|Raw $column): static
    {
        return $this->where($column, 'is', null);
    }

    public function whereNotNull(string|Raw $column): static
    {
        return $this->where($column, 'is not', null);
    }

    /** Compares two columns: whereColumn('updated_at', '>', 'created_at'). */
    public function whereColumn(string $first, string $operator, string $second): static
    {
        return $this->with(static fn (Clauses $c) => $c->wheres[] = ['AND', $c->grammar->columns($first, $operator, $second), []]);
    }

    /** @param string|Raw|Closure(Query<TRow>): Query<TRow>|array<string, mixed> $column */
    private function addWhere(string $boolean, bool $not, int $args, string|Raw|Closure|array $column, mixed $operator, mixed $value): static
    {
        if ($column instanceof Closure || \is_array($column)) {
            $group = $this->with(static fn (Clauses $c) => $c->wheres = []);
            $group = $column instanceof Closure ? $column($group) : $group->whereEach($column);
            if (!$group instanceof Query) {
                throw new QueryError('A where() group closure must return the query it builds (queries are immutable)');
            }
            if ($group->clauses->wheres === []) {
                return $this;
            }
            [$sql, $bindings] = Clauses::conditions($group->clauses->wheres);
            $sql = "({$sql})";
        } elseif ($args === 1) {
            if (!$column instanceof Raw) {
                throw new QueryError("where('{$column}') needs a value (or an operator and a value)");
            }
            [$sql, $bindings] = ["({$column->sql})", $column->bindings];
        } else {
            [$operator, $value] = $args === 2 ? ['=', $operator] : [$operator, $value];
            if (!\is_string($operator)) {
                throw new QueryError('The operator must be a string such as "=", ">" or "in"');
            }
            [$sql, $bindings] = $this->clauses->grammar->condition($column, $operator, $value);
            $sql = $not ? "({$sql})" : $sql;
        }
        $sql = $not ? "NOT {$sql}" : $sql;

        return $this->with(static fn (Clauses $c) => $c->wheres[] = [$boolean, $sql, $bindings]);
    }

    /** @param array<mixed> $conditions */
    private function whereEach(array $conditions): static
    {
        $query = $this;
        foreach ($conditions as $column => $value) {
            if (!\is_string($column)) {
                throw new QueryError('where(array) takes column => value pairs');
            }
            $query = $query->where($column, '=', $value);
        }

        return $query;
    }
}
