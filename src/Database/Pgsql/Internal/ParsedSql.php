<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Petrel\Database\DatabaseError;

/**
 * A statement with its placeholders rewritten to `$1..$n`, and how to line up the caller's
 * parameters with them.
 *
 * @internal
 */
final class ParsedSql
{
    /**
     * @param list<string>|null $names for :name placeholders, the name of $1, $2…; null for positional
     * @param bool $preparable one statement of a kind worth a cached prepared statement (SELECT, DML)
     * @param bool $native placeholders written as $n, which may also belong to the statement
     *                     itself (PREPARE … AS, a function body): without parameters they pass as they are
     */
    public function __construct(
        public readonly string $sql,
        public readonly int $count,
        public readonly ?array $names,
        public readonly bool $preparable = false,
        public readonly bool $native = false,
    ) {
    }

    /**
     * The parameters as libpq wants them: text (or null), in placeholder order.
     *
     * @param array<int|string, mixed> $params
     * @return list<int|string|null>
     * @throws DatabaseError when they do not match the placeholders
     */
    public function bind(array $params): array
    {
        if ($this->names !== null) {
            return $this->bindNamed($params);
        }
        if ($params === [] && $this->native) {
            return [];
        }
        if (\count($params) !== $this->count) {
            throw new DatabaseError(\sprintf(
                'The SQL has %d placeholder(s) but %d parameter(s) were given: %s',
                $this->count,
                \count($params),
                self::excerpt($this->sql),
            ));
        }
        if ($params === []) {
            return [];
        }
        if (!\array_is_list($params)) {
            throw new DatabaseError('The SQL uses positional placeholders (? or $n); bind a list, not an array keyed by name: ' . self::excerpt($this->sql));
        }
        $values = [];
        foreach ($params as $position => $value) {
            $values[] = self::value($value, $position);
        }

        return $values;
    }

    /**
     * @param array<int|string, mixed> $params
     * @return list<int|string|null>
     */
    private function bindNamed(array $params): array
    {
        \assert($this->names !== null);
        $values = [];
        $found = 0;
        foreach ($this->names as $name) {
            if (\array_key_exists($name, $params)) {
                $value = $params[$name];
            } elseif (\array_key_exists(":{$name}", $params)) {
                $value = $params[":{$name}"];
            } else {
                throw new DatabaseError("Missing parameter :{$name} for: " . self::excerpt($this->sql));
            }
            $found++;
            $values[] = self::value($value, $name);
        }
        if ($found !== \count($params)) {
            $extra = [];
            foreach (\array_keys($params) as $key) {
                if (!\in_array(\ltrim((string) $key, ':'), $this->names, true)) {
                    $extra[] = \is_int($key) ? "#{$key}" : ':' . \ltrim($key, ':');
                }
            }
            throw new DatabaseError(\sprintf(
                'Parameter(s) %s match no placeholder (the SQL uses :name placeholders: %s)',
                $extra === [] ? 'given twice (with and without ":")' : \implode(', ', $extra),
                \implode(', ', \array_map(static fn (string $n): string => ":{$n}", $this->names)),
            ));
        }

        return $values;
    }

    private static function value(mixed $value, int|string $position): int|string|null
    {
        return \is_int($value) || (\is_string($value) && !\str_contains($value, "\0"))
            ? $value // the common cases, sent as they are (ext-pgsql turns an int into its digits)
            : ParameterEncoder::encode($value, $position);
    }

    private static function excerpt(string $sql): string
    {
        return \strlen($sql) > 200 ? \substr($sql, 0, 200) . '…' : $sql;
    }
}
