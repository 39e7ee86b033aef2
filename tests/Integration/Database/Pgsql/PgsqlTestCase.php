<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Pgsql;

use Petrel\Database\DatabaseConfig;
use Petrel\Database\Pgsql\PgsqlConnection;
use Petrel\Tests\Support\DatabaseServerTestCase;

/**
 * Base of the tests against a real PostgreSQL server: the one in $PGSQL_URL
 * (pgsql://user:pass@host:port/db; the user needs CREATE on the database, and superuser
 * or pg_signal_backend for the pg_terminate_backend tests). Skipped without it, failed in
 * CI; see DatabaseServerTestCase.
 *
 * @extends DatabaseServerTestCase<PgsqlConnection>
 */
abstract class PgsqlTestCase extends DatabaseServerTestCase
{
    protected static function urlVariable(): string
    {
        return 'PGSQL_URL';
    }

    protected static function describeServer(): string
    {
        return 'PostgreSQL (set PGSQL_URL, e.g. pgsql://user:pass@127.0.0.1:5432/db)';
    }

    protected static function missingExtension(): string
    {
        return \extension_loaded('pgsql') ? '' : 'the pgsql extension is not loaded';
    }

    protected static function open(DatabaseConfig $config): PgsqlConnection
    {
        return PgsqlConnection::connect($config);
    }
}
