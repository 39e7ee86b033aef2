<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\DatabaseError;

/**
 * The placeholders of a statement, and the binding of parameters to them.
 *
 * MySQL prepares only `?`; `:name` placeholders are rewritten to `?` here, outside string
 * literals ('…', "…"), quoted identifiers (`…`) and comments (-- …, # …, /* … *\/), and
 * the names remembered in order (a name may repeat). A statement uses one style or the
 * other. Parameter values never enter the SQL text: they travel in COM_STMT_EXECUTE.
 *
 * @internal
 */
final class Placeholders
{
    /** @param list<string> $names one per `?` of $sql when the statement used :name placeholders */
    private function __construct(
        /** The SQL to prepare (named placeholders rewritten to `?`). */
        public readonly string $sql,
        public readonly array $names,
    ) {
    }

    /** @throws DatabaseError if $sql mixes `?` and `:name` placeholders */
    public static function parse(string $sql): self
    {
        if (!\str_contains($sql, ':')) {
            return new self($sql, []); // no named placeholder possible: nothing to rewrite
        }
        $length = \strlen($sql);
        $out = '';
        $names = [];
        $positional = 0;
        $i = 0;
        while ($i < $length) {
            $run = \strcspn($sql, "'\"`-#/:?", $i);
            $out .= \substr($sql, $i, $run);
            $i += $run;
            if ($i >= $length) {
                break;
            }
            $start = $i;
            $c = $sql[$i];
            if ($c === "'" || $c === '"' || $c === '`') {
                $i = self::quotedEnd($sql, $i, $c);
            } elseif ($c === '#' || ($c === '-' && self::isDashComment($sql, $i))) {
                $end = \strpos($sql, "\n", $i);
                $i = $end === false ? $length : $end;
            } elseif ($c === '/' && ($sql[$i + 1] ?? '') === '*') {
                $end = \strpos($sql, '*/', $i + 2);
                $i = $end === false ? $length : $end + 2;
            } elseif ($c === ':' && \preg_match('/\G:([A-Za-z_][A-Za-z0-9_]*)/', $sql, $m, 0, $i) === 1
                && ($i === 0 || $sql[$i - 1] !== ':')
            ) {
                $names[] = $m[1];
                $out .= '?';
                $i += \strlen($m[0]);
                continue;
            } else {
                $positional += $c === '?' ? 1 : 0;
                ++$i;
            }
            $out .= \substr($sql, $start, $i - $start);
        }
        if ($names !== [] && $positional > 0) {
            throw new DatabaseError(\sprintf(
                'The statement mixes ? and :name placeholders (:%s); use one style: %s',
                \implode(', :', \array_unique($names)),
                self::excerpt($sql),
            ));
        }

        return $names === [] ? new self($sql, []) : new self($out, $names);
    }

    /**
     * The values in placeholder order.
     *
     * @param array<int|string, mixed> $params a list for `?`, keyed by name (with or without the colon) for `:name`
     * @return list<mixed>
     *
     * @throws DatabaseError when the parameters do not match the placeholders
     */
    public function bind(array $params, int $count): array
    {
        if (\array_is_list($params)) {
            if ($this->names !== [] && $params !== []) {
                throw new DatabaseError(\sprintf(
                    'The statement uses named placeholders (:%s): pass the parameters keyed by name, not as a list',
                    \implode(', :', \array_unique($this->names)),
                ));
            }
            if (\count($params) !== $count) {
                throw new DatabaseError(\sprintf(
                    'The statement has %d placeholder%s but %d parameter%s given',
                    $count,
                    $count === 1 ? '' : 's',
                    \count($params),
                    \count($params) === 1 ? ' was' : 's were',
                ));
            }

            return $params;
        }
        $named = [];
        foreach ($params as $key => $value) {
            if (\is_int($key)) {
                throw new DatabaseError('Parameters mix positional (integer) and named (string) keys; use one style');
            }
            $named[\ltrim($key, ':')] = $value;
        }
        if ($this->names === []) {
            throw new DatabaseError(\sprintf(
                'Named parameters (:%s) given, but the statement has %s',
                \implode(', :', \array_keys($named)),
                $count > 0 ? '? placeholders: pass a list' : 'no placeholders',
            ));
        }
        $values = [];
        foreach ($this->names as $name) {
            if (!\array_key_exists($name, $named)) {
                throw new DatabaseError("Missing a value for the placeholder :{$name}");
            }
            $values[] = $named[$name];
        }
        $extra = \array_diff_key($named, \array_flip($this->names));
        if ($extra !== []) {
            throw new DatabaseError(\sprintf(
                'Parameter%s :%s not used by the statement (its placeholders: :%s)',
                \count($extra) === 1 ? '' : 's',
                \implode(', :', \array_keys($extra)),
                \implode(', :', \array_unique($this->names)),
            ));
        }

        return $values;
    }

    /** Offset just past the literal or identifier opened by $quote at $i (doubled quotes and, in strings, backslashes escape). */
    private static function quotedEnd(string $sql, int $i, string $quote): int
    {
        $length = \strlen($sql);
        $stops = $quote === '`' ? '`' : $quote . '\\';
        ++$i;
        while (true) {
            $i += \strcspn($sql, $stops, $i);
            if ($i >= $length) {
                return $length;
            }
            if ($sql[$i] === '\\') {
                $i += 2;
                continue;
            }
            if (($sql[$i + 1] ?? '') === $quote) {
                $i += 2;
                continue;
            }

            return $i + 1;
        }
    }

    /** "--" starts a comment only when followed by whitespace, a control character or the end. */
    private static function isDashComment(string $sql, int $i): bool
    {
        if (($sql[$i + 1] ?? '') !== '-') {
            return false;
        }
        $next = $sql[$i + 2] ?? '';

        return $next === '' || \ord($next) <= 0x20;
    }

    private static function excerpt(string $sql): string
    {
        return \strlen($sql) > 120 ? \substr($sql, 0, 117) . '...' : $sql;
    }
}
