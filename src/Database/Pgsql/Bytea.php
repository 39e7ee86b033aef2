<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql;

/**
 * Binary data for a bytea parameter. PostgreSQL parameters travel as text, so raw bytes
 * cannot be bound as a plain string (a NUL byte is rejected; other bytes would be read as
 * bytea's escape format, where a backslash means something). Wrap them instead:
 *
 *     $db->execute('INSERT INTO files (data) VALUES (?)', [new Bytea($bytes)]);
 *
 * They are sent in bytea's hex format. bytea columns come back decoded, as plain strings.
 */
final class Bytea
{
    public function __construct(public readonly string $bytes)
    {
    }
}
