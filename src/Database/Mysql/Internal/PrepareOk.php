<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/** The outcome of COM_STMT_PREPARE: statement id and the parameter and column definitions. */
final class PrepareOk
{
    /**
     * @param list<ColumnDefinition> $params
     * @param list<ColumnDefinition> $columns
     */
    public function __construct(
        public readonly int $statementId,
        public readonly int $paramCount,
        public readonly int $columnCount,
        public readonly int $warnings,
        public readonly array $params = [],
        public readonly array $columns = [],
    ) {
    }
}
