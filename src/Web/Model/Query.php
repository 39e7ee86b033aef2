<?php

declare(strict_types=1);

namespace Petrel\Web\Model;

use Closure;
use Petrel\Database\Database;
use Petrel\Database\QueryException;
use Petrel\Database\Result;
use Petrel\Web\Model\Dialect\Dialect;
use Petrel\Web\Model\Internal\Clauses;
use Petrel\Web\Model\Internal\Grammar;
use Petrel\Web\Model\Internal\WhereMethods;

/**
 * Builds one SQL statement and runs it on a Database. Values are always bound (`?`),
 * identifiers always quoted for the dialect (`table.column`, `*`, `name AS alias`),
 * operators checked against a whitelist; SQL text enters only through Query::raw().
 *
 *     $adults = Query::on($db)->table('users')->where('age', '>=', 18)->orderBy('name')->get();
 *
 * Immutable: every builder call returns a new Query and leaves the original untouched, so
 * a base query can live in a property of a resident object and be extended per request.
 * (A where(Closure) group therefore has to return the query it builds.) Built for a
 * Dialect only, a query can produce SQL (toSql() and friends) but not run it.
 *
 * @template TRow rows as returned by get(): arrays, or what map() turns them into (models)
 */
final class Query
{
    /** @use WhereMethods<TRow> */
    use WhereMethods;

    private Clauses $clauses;
    /** @var (Closure(array<string, mixed>): TRow)|null */
    private ?Closure $map = null;

    private function __construct(Grammar $grammar, private readonly ?Database $db)
    {
        $this->clauses = new Clauses($grammar);
    }

    /**
     * A query on $target: a Database (the dialect follows its driver) or just a Dialect.
     *
     * @return self<array<string, mixed>>
     */
    public static function on(Database|Dialect $target): self
    {
        return $target instanceof Database
            ? new self(Grammar::forDriver($target->driverName()), $target)
            : new self(new Grammar($target), null);
    }

    /**
     * SQL inserted verbatim — the escape hatch. Values go in $bindings, never in $sql.
     *
     * @param list<mixed> $bindings
     */
    public static function raw(string $sql, array $bindings = []): Raw
    {
        return new Raw($sql, $bindings);
    }

    public function dialect(): Dialect
    {
        return $this->clauses->grammar->dialect;
    }

    /** The table to query, optionally aliased: "users", "users AS u". */
    public function table(string $table): static
    {
        return $this->with(static fn (Clauses $c) => $c->table = $c->grammar->identifier($table));
    }

    /** The columns to select (replacing any chosen before); none means `*`. */
    public function select(string|Raw ...$columns): static
    {
        return $this->with(static fn (Clauses $c) => $c->columns = \array_map($c->grammar->expression(...), \array_values($columns)));
    }

    public function distinct(bool $distinct = true): static
    {
        return $this->with(static fn (Clauses $c) => $c->distinct = $distinct);
    }

    /** INNER JOIN $table ON $first $operator $second, or ON a Raw condition given as $first. */
    public function join(string $table, string|Raw $first, ?string $operator = null, ?string $second = null): static
    {
        return $this->with(static fn (Clauses $c) => $c->joins[] = $c->grammar->join('INNER JOIN', $table, $first, $operator, $second));
    }

    public function leftJoin(string $table, string|Raw $first, ?string $operator = null, ?string $second = null): static
    {
        return $this->with(static fn (Clauses $c) => $c->joins[] = $c->grammar->join('LEFT JOIN', $table, $first, $operator, $second));
    }

    public function groupBy(string|Raw ...$columns): static
    {
        return $this->with(static fn (Clauses $c) => \array_push($c->groups, ...\array_map($c->grammar->expression(...), \array_values($columns))));
    }

    /** A HAVING condition (ANDed), as where(): having(Query::raw('COUNT(*)'), '>', 2). */
    public function having(string|Raw $column, mixed $operator = null, mixed $value = null): static
    {
        [$operator, $value] = \func_num_args() === 2 ? ['=', $operator] : [(string) $operator, $value];

        return $this->with(static fn (Clauses $c) => $c->havings[] = ['AND', ...$c->grammar->condition($column, $operator, $value)]);
    }

    public function orderBy(string|Raw $column, string $direction = 'asc'): static
    {
        return $this->with(static function (Clauses $c) use ($column, $direction): void {
            [$sql, $bindings] = $c->grammar->expression($column);
            $c->orders[] = ["{$sql} " . $c->grammar->direction($direction), $bindings];
        });
    }

    public function limit(?int $limit): static
    {
        if ($limit !== null && $limit < 0) {
            throw new QueryError("limit() takes a count >= 0, not {$limit}");
        }

        return $this->with(static fn (Clauses $c) => $c->limit = $limit);
    }

    public function offset(?int $offset): static
    {
        if ($offset !== null && $offset < 0) {
            throw new QueryError("offset() takes a count >= 0, not {$offset}");
        }

        return $this->with(static fn (Clauses $c) => $c->offset = $offset === 0 ? null : $offset);
    }

    /**
     * The same query returning each row passed through $map (Model::query() maps to models).
     * Only get(), first() and paginate() map; value(), pluck() and the rest return raw data.
     *
     * @template TNew
     * @param Closure(array<string, mixed>): TNew $map
     * @return self<TNew>
     */
    public function map(Closure $map): self
    {
        /** @var self<TNew> $query */
        $query = new self($this->clauses->grammar, $this->db);
        $query->clauses = $this->clauses;
        $query->map = $map;

        return $query;
    }

    /** @return array{string, list<mixed>} the SELECT and its bindings */
    public function toSql(): array
    {
        return $this->clauses->select();
    }

    /**
     * @param array<string, mixed>|list<array<string, mixed>> $rows
     * @param string|null $returning the key insertGetId() reads back (RETURNING on PostgreSQL only)
     * @return array{string, list<mixed>} the INSERT that insert(), or insertGetId() given $returning, runs
     */
    public function toInsertSql(array $rows, ?string $returning = null): array
    {
        return $this->clauses->insert(Clauses::rows($rows), $returning);
    }

    /**
     * @param array<string, mixed> $values
     * @return array{string, list<mixed>}
     */
    public function toUpdateSql(array $values): array
    {
        return $this->clauses->update($values);
    }

    /** @return array{string, list<mixed>} */
    public function toDeleteSql(): array
    {
        return $this->clauses->delete();
    }

    /** @return list<TRow> */
    public function get(): array
    {
        $rows = $this->fetch($this->clauses->select());
        if ($this->map === null) {
            /** @var list<TRow> $rows */
            return $rows;
        }

        return \array_map($this->map, $rows);
    }

    /** @return TRow|null */
    public function first(): mixed
    {
        return $this->limit(1)->get()[0] ?? null;
    }

    /** The first row's value of $column, or null when there is no row. */
    public function value(string|Raw $column): mixed
    {
        $row = $this->select($column)->limit(1)->fetch(null)[0] ?? null;

        return $row === null ? null : (\array_values($row)[0] ?? null);
    }

    /** How many rows match (limit, offset and order are ignored). */
    public function count(): int
    {
        $row = $this->fetch($this->clauses->count())[0] ?? [];

        return (int) (\array_values($row)[0] ?? 0);
    }

    public function exists(): bool
    {
        return $this->select(self::raw('1'))->limit(1)->fetch(null) !== [];
    }

    /**
     * One column's values, as a list or keyed by another column.
     *
     * @return array<mixed>
     */
    public function pluck(string|Raw $column, ?string $key = null): array
    {
        $query = $key === null || $key === $column ? $this->select($column) : $this->select($column, $key);
        $values = [];
        foreach ($query->fetch(null) as $row) {
            $row = \array_values($row);
            if ($key === null) {
                $values[] = $row[0];
            } else {
                $values[self::arrayKey($row[1] ?? $row[0])] = $row[0];
            }
        }

        return $values;
    }

    /**
     * Page $page (from 1; smaller is taken as 1) of $perPage rows, with the total count.
     *
     * @return Page<TRow>
     */
    public function paginate(int $page, int $perPage = 15): Page
    {
        if ($perPage < 1) {
            throw new QueryError("paginate() takes a page size >= 1, not {$perPage}");
        }
        $page = \max(1, $page);
        $total = $this->count();
        $items = $total > ($page - 1) * $perPage ? $this->limit($perPage)->offset(($page - 1) * $perPage)->get() : [];

        return new Page($items, $total, $page, $perPage);
    }

    /** @param array<string, mixed>|list<array<string, mixed>> $rows one row (column => value) or a list of rows */
    public function insert(array $rows): Result
    {
        [$sql, $bindings] = $this->clauses->insert(Clauses::rows($rows));

        return $this->database()->execute($sql, $bindings);
    }

    /**
     * Inserts one row and returns its generated key: LAST_INSERT_ID() on MySQL, the rowid on
     * SQLite, `RETURNING $key` on PostgreSQL. Numeric keys come back as int.
     *
     * @param array<string, mixed> $row
     * @throws QueryException if the statement generated no key
     */
    public function insertGetId(array $row, string $key = 'id'): int|string
    {
        [$sql, $bindings] = $this->clauses->insert([$row], $key);
        $id = $this->dialect()->supportsReturning()
            ? (\array_values($this->database()->query($sql, $bindings)[0] ?? [])[0] ?? null)
            : $this->database()->execute($sql, $bindings)->lastInsertId;
        if (\is_string($id) && \preg_match('/^-?[1-9][0-9]{0,17}$/', $id) === 1) {
            $id = (int) $id;
        }
        if (!\is_int($id) && !\is_string($id)) {
            throw new QueryException("The INSERT generated no key \"{$key}\"", sql: $sql);
        }

        return $id;
    }

    /** @param array<string, mixed> $values column => value or Raw; returns the rows changed */
    public function update(array $values): int
    {
        return $this->database()->execute(...$this->clauses->update($values))->affectedRows;
    }

    /** Deletes the matching rows (all rows without a where()); returns how many. */
    public function delete(): int
    {
        return $this->database()->execute(...$this->clauses->delete())->affectedRows;
    }

    /** @param Closure(Clauses): mixed $change */
    private function with(Closure $change): static
    {
        $query = clone $this;
        $query->clauses = clone $this->clauses;
        $change($query->clauses);

        return $query;
    }

    /**
     * @param array{string, list<mixed>}|null $statement null: this query's SELECT
     * @return list<array<string, mixed>>
     */
    private function fetch(?array $statement): array
    {
        [$sql, $bindings] = $statement ?? $this->clauses->select();

        return $this->database()->query($sql, $bindings);
    }

    private function database(): Database
    {
        return $this->db ?? throw new QueryError('This query was built for a dialect only; build it with Query::on($database) to run it');
    }

    private static function arrayKey(mixed $value): int|string
    {
        return \is_int($value) || \is_string($value) ? $value : (\is_scalar($value) || $value instanceof \Stringable ? (string) $value : \get_debug_type($value));
    }
}
