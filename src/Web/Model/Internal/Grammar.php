<?php

declare(strict_types=1);

namespace Petrel\Web\Model\Internal;

use Petrel\Web\Model\Dialect\Dialect;
use Petrel\Web\Model\Dialect\MysqlDialect;
use Petrel\Web\Model\Dialect\PgsqlDialect;
use Petrel\Web\Model\Dialect\SqliteDialect;
use Petrel\Web\Model\Query;
use Petrel\Web\Model\QueryError;
use Petrel\Web\Model\Raw;

/**
 * Turns builder arguments into SQL fragments for one dialect. Every identifier goes
 * through quoting, every operator through the dialect's whitelist, every value becomes a
 * `?` with a binding (or a Raw / sub-query the caller built on purpose).
 *
 * @internal
 */
final class Grammar
{
    public function __construct(public readonly Dialect $dialect)
    {
    }

    public static function forDriver(string $driver): self
    {
        return new self(match ($driver) {
            'mysql' => new MysqlDialect(),
            'pgsql' => new PgsqlDialect(),
            'sqlite' => new SqliteDialect(),
            default => throw new QueryError("No SQL dialect for the database driver \"{$driver}\""),
        });
    }

    /** Quotes `name`, `table.name`, `*`, `table.*` and `name AS alias` (case-insensitive AS). */
    public function identifier(string $name): string
    {
        $name = \trim($name);
        if (\strpbrk($name, " \t\n") !== false && \preg_match('/^(.+?)\s+as\s+(\S+)$/i', $name, $m) === 1) {
            return $this->identifier($m[1]) . ' AS ' . $this->dialect->quoteIdentifier($m[2]);
        }
        $parts = \explode('.', $name);
        $last = \count($parts) - 1;
        foreach ($parts as $i => $part) {
            if ($part === '') {
                throw new QueryError("Invalid identifier \"{$name}\"");
            }
            $parts[$i] = $part === '*' && $i === $last ? '*' : $this->dialect->quoteIdentifier($part);
        }

        return \implode('.', $parts);
    }

    /** @return array{string, list<mixed>} a column (quoted) or a Raw expression, with its bindings */
    public function expression(string|Raw $column): array
    {
        return $column instanceof Raw ? [$column->sql, $column->bindings] : [$this->identifier($column), []];
    }

    /** The operator, lower case and single-spaced, if the dialect allows it. */
    public function operator(string $operator): string
    {
        $normalized = \strlen($operator) <= 2 ? $operator : \strtolower((string) \preg_replace('/\s+/', ' ', \trim($operator)));
        if (!\in_array($normalized, $this->dialect->operators(), true)) {
            throw new QueryError(\sprintf(
                'Unsupported operator "%s" for %s; use one of: %s',
                $operator,
                $this->dialect->name(),
                \implode(', ', $this->dialect->operators()),
            ));
        }

        return $normalized;
    }

    public function direction(string $direction): string
    {
        $upper = \strtoupper(\trim($direction));
        if ($upper !== 'ASC' && $upper !== 'DESC') {
            throw new QueryError("Sort direction must be \"asc\" or \"desc\", not \"{$direction}\"");
        }

        return $upper;
    }

    /**
     * `column operator value`: null becomes IS [NOT] NULL, IN takes a list or a sub-query.
     *
     * @return array{string, list<mixed>}
     */
    public function condition(string|Raw $column, string $operator, mixed $value): array
    {
        [$left, $bindings] = $this->expression($column);
        $op = $this->operator($operator);
        if ($op === 'in' || $op === 'not in') {
            return $this->in($left, $bindings, $op, $value);
        }
        if ($value === null) {
            return match ($op) {
                '=', 'is' => ["{$left} IS NULL", $bindings],
                '<>', '!=', 'is not' => ["{$left} IS NOT NULL", $bindings],
                default => throw new QueryError("Cannot compare {$left} with null using \"{$operator}\"; use =, <>, is or is not"),
            };
        }
        if ($op === 'is' || $op === 'is not') {
            if (!\is_bool($value)) {
                throw new QueryError('The operator "' . $operator . '" takes null, true or false');
            }

            return [$left . ' ' . \strtoupper($op) . ($value ? ' TRUE' : ' FALSE'), $bindings];
        }
        [$right, $more] = $this->value($value);

        return ["{$left} " . \strtoupper($op) . " {$right}", [...$bindings, ...$more]];
    }

    /** Compares two columns: `a > b`. */
    public function columns(string $first, string $operator, string $second): string
    {
        $op = $this->operator($operator);
        if (\in_array($op, ['in', 'not in', 'is', 'is not'], true)) {
            throw new QueryError("Two columns cannot be compared with \"{$operator}\"");
        }

        return $this->identifier($first) . ' ' . \strtoupper($op) . ' ' . $this->identifier($second);
    }

    /**
     * `TYPE JOIN table ON first op second`, or ON a Raw condition given as $first.
     *
     * @return array{string, list<mixed>}
     */
    public function join(string $type, string $table, string|Raw $first, ?string $operator, ?string $second): array
    {
        if ($first instanceof Raw) {
            return ["{$type} {$this->identifier($table)} ON {$first->sql}", $first->bindings];
        }
        if ($operator === null || $second === null) {
            throw new QueryError('join() needs $first, $operator and $second columns (or a Raw condition)');
        }

        return ["{$type} {$this->identifier($table)} ON {$this->columns($first, $operator, $second)}", []];
    }

    /**
     * A value as SQL: `?` with one binding, a Raw verbatim, or a parenthesised sub-query.
     *
     * @return array{string, list<mixed>}
     */
    public function value(mixed $value): array
    {
        if ($value instanceof Raw) {
            return [$value->sql, $value->bindings];
        }
        if ($value instanceof Query) {
            if ($value->dialect()->name() !== $this->dialect->name()) {
                throw new QueryError('A sub-query must use the same SQL dialect as the query around it');
            }
            [$sql, $bindings] = $value->toSql();

            return ["({$sql})", $bindings];
        }
        if (\is_array($value)) {
            throw new QueryError('An array is only a valid value for the "in" and "not in" operators');
        }

        return ['?', [$value]];
    }

    /**
     * @param list<mixed> $bindings
     * @return array{string, list<mixed>}
     */
    private function in(string $left, array $bindings, string $op, mixed $values): array
    {
        $keyword = \strtoupper($op);
        if ($values instanceof Query || $values instanceof Raw) {
            [$sql, $more] = $this->value($values);

            return ["{$left} {$keyword} " . ($values instanceof Raw ? "({$sql})" : $sql), [...$bindings, ...$more]];
        }
        if (!\is_array($values)) {
            throw new QueryError("The operator \"{$op}\" takes an array, a sub-query or a Raw expression");
        }
        if ($values === []) {
            return [$op === 'in' ? '0 = 1' : '1 = 1', $bindings]; // IN () is a syntax error; this is its meaning
        }
        $placeholders = [];
        foreach ($values as $value) {
            [$placeholders[], $more] = $this->value($value);
            $bindings = [...$bindings, ...$more];
        }

        return ["{$left} {$keyword} (" . \implode(', ', $placeholders) . ')', $bindings];
    }
}
