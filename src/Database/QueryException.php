<?php

declare(strict_types=1);

namespace Petrel\Database;

/**
 * The server rejected a statement: syntax error, constraint violation, deadlock... The
 * connection stays usable (unless the error also broke it, e.g. inside a failed transaction
 * on PostgreSQL, which needs a rollback).
 *
 * Codes, the same rule for every driver:
 *  - getSqlState(): the portable one, a five-character SQLSTATE ("23000" for a MySQL
 *    duplicate key, "23505" on PostgreSQL, "23000" on SQLite). Test this in portable code.
 *  - getCode() is getDriverCode(): the database's own code, an int where it has numbers
 *    (MySQL/MariaDB 1062, SQLite 19 = SQLITE_CONSTRAINT), the SQLSTATE string on PostgreSQL,
 *    whose own codes are SQLSTATEs. (PDO's getCode() is the SQLSTATE, its errorInfo[1] the
 *    driver's number: use getSqlState() where PDO code used getCode().)
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
        parent::__construct($message, 0, $previous);
        $this->code = $driverCode; // a string for PostgreSQL, as PDOException's code is a string
    }

    /** The five-character SQLSTATE, e.g. "23000" (MySQL duplicate key) or "23505" (PostgreSQL). */
    public function getSqlState(): string
    {
        return $this->sqlState;
    }

    /** The server's own error code: 1062 (MySQL), "23505" (PostgreSQL), 19 (SQLite)...; also getCode(). */
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
