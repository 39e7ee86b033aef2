<?php

declare(strict_types=1);

namespace Petrel\Database\Sqlite;

use PDOStatement;
use Petrel\Database\DatabaseError;
use Petrel\Database\Result;
use Petrel\Database\Statement;

/** A prepared SQLite statement. */
final class SqliteStatement implements Statement
{
    private bool $closed = false;

    public function __construct(
        private readonly PDOStatement $statement,
        private readonly SqliteConnection $connection,
        private readonly string $sql,
    ) {
    }

    public function query(array $params = []): array
    {
        $statement = $this->connection->runStatement($this->open(), $params, $this->sql);
        /** @var list<array<string, mixed>> $rows */
        $rows = $statement->fetchAll();
        $statement->closeCursor();

        return $rows;
    }

    public function execute(array $params = []): Result
    {
        $statement = $this->connection->runStatement($this->open(), $params, $this->sql);
        $affected = $statement->rowCount();
        $statement->closeCursor();

        return new Result($affected);
    }

    public function close(): void
    {
        $this->closed = true;
    }

    private function open(): PDOStatement
    {
        if ($this->closed) {
            throw new DatabaseError('This prepared statement was closed');
        }

        return $this->statement;
    }
}
