<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/**
 * A statement prepared on the server: its id, and how to bind parameters to it.
 *
 * @internal
 */
final class PreparedStatement
{
    public function __construct(
        public readonly int $id,
        public readonly int $paramCount,
        public readonly Placeholders $placeholders,
    ) {
    }

    /**
     * The COM_STMT_EXECUTE payload for $params.
     *
     * @param array<int|string, mixed> $params
     */
    public function execute(array $params): string
    {
        if ($this->placeholders->names === [] && \count($params) === $this->paramCount && \array_is_list($params)) {
            return ExecuteEncoder::encode($this->id, $params); // the usual case: a list that fits
        }

        return ExecuteEncoder::encode($this->id, $this->placeholders->bind($params, $this->paramCount));
    }
}
