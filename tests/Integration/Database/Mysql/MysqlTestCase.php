<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Mysql;

use Petrel\Database\DatabaseConfig;
use Petrel\Database\Mysql\MysqlConnection;
use Petrel\Tests\Support\DatabaseServerTestCase;

/**
 * Base of the tests against a real MariaDB/MySQL server: the one in $MYSQL_URL (skipped
 * without it, failed in CI; see DatabaseServerTestCase).
 *
 * @extends DatabaseServerTestCase<MysqlConnection>
 */
abstract class MysqlTestCase extends DatabaseServerTestCase
{
    protected static function urlVariable(): string
    {
        return 'MYSQL_URL';
    }

    protected static function describeServer(): string
    {
        return 'MariaDB/MySQL (set MYSQL_URL, e.g. mysql://user:pass@127.0.0.1:3306/test)';
    }

    protected static function open(DatabaseConfig $config): MysqlConnection
    {
        return MysqlConnection::connect($config);
    }

    /**
     * The id of every other server thread running a statement that contains $marker.
     *
     * @return list<int>
     */
    protected static function runningThreads(MysqlConnection $db, string $marker): array
    {
        $rows = $db->query(
            'SELECT ID AS id FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND ID <> CONNECTION_ID()',
            ['%' . $marker . '%'],
        );

        return \array_column($rows, 'id');
    }
}
