<?php

declare(strict_types=1);

namespace Petrel\Web\Model;

/**
 * A piece of SQL the builder inserts verbatim: the escape hatch for functions, arithmetic
 * and anything the builder does not model. Never build one from user input; put values in
 * $bindings (they are bound to the `?` placeholders inside $sql, in order).
 *
 *     $q->select('id', Query::raw('COUNT(*) AS n'))->orderBy(Query::raw('LOWER(name)'));
 */
final class Raw
{
    /** @param list<mixed> $bindings */
    public function __construct(
        public readonly string $sql,
        public readonly array $bindings = [],
    ) {
    }
}
