<?php

declare(strict_types=1);

namespace Petrel\Database;

/**
 * The server rejected a statement: syntax error, constraint violation, deadlock... The
 * connection stays usable (unless the error also broke it, e.g. inside a failed transaction
 * on PostgreSQL, which needs a rollback).
 */
class QueryException extends DatabaseException
{
    public function __construct(
        string $message,
        private readonly string $sqlState = 'HY000',
        private readonly int|string $driverCode = 0,
        private readonly ?string $sql = null,
        ?\Throwable $previous = null,
    ) {
        parent::__construct($message, \is_int($driverCode) ? $driverCode : 0, $previous);
    }

    /** The five-character SQLSTATE, e.g. "23000" (MySQL duplicate key) or "23505" (PostgreSQL). */
    public function getSqlState(): string
    {
        return $this->sqlState;
    }

    /** The server's own error code: 1062 (MySQL), "23505" (PostgreSQL), 19 (SQLite)... */
    public function getDriverCode(): int|string
    {
        return $this->driverCode;
    }

    /** The statement (without parameter values), for logs. */
    public function getSql(): ?string
    {
        return $this->sql;
    }
}
