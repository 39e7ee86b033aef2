<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql;

use Petrel\Database\DatabaseError;
use Petrel\Database\Mysql\Internal\PreparedStatement;
use Petrel\Database\Result;
use Petrel\Database\Statement;

/**
 * A statement prepared on the server by MysqlConnection::prepare(): each query() or
 * execute() is one COM_STMT_EXECUTE round trip. Takes `?` or `:name` placeholders (not
 * both). close() (or losing the last reference) frees it on the server, with the next command.
 */
final class MysqlStatement implements Statement
{
    private bool $closed = false;

    /** @internal created by MysqlConnection::prepare() */
    public function __construct(
        private readonly MysqlConnection $connection,
        private readonly PreparedStatement $statement,
        private readonly string $sql,
    ) {
    }

    public function query(array $params = []): array
    {
        $rows = $this->connection->runStatement($this->open(), $params, $this->sql, true);
        \assert(\is_array($rows));

        return $rows;
    }

    public function execute(array $params = []): Result
    {
        $result = $this->connection->runStatement($this->open(), $params, $this->sql, false);
        \assert($result instanceof Result);

        return $result;
    }

    public function close(): void
    {
        if (!$this->closed) {
            $this->closed = true;
            $this->connection->closeStatement($this->statement);
        }
    }

    public function __destruct()
    {
        $this->close();
    }

    private function open(): PreparedStatement
    {
        if ($this->closed) {
            throw new DatabaseError("This prepared statement was closed: {$this->sql}");
        }

        return $this->statement;
    }
}
