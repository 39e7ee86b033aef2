<?php

declare(strict_types=1);

namespace Petrel\Database;

/** What a statement changed. */
final class Result
{
    public function __construct(
        public readonly int $affectedRows,
        /** The generated id of an INSERT (MySQL AUTO_INCREMENT, SQLite rowid, PostgreSQL … RETURNING), or null. */
        public readonly int|string|null $lastInsertId = null,
    ) {
    }
}
