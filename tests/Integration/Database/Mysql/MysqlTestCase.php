<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Mysql;

use Petrel\Database\DatabaseConfig;
use Petrel\Database\Mysql\MysqlConnection;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\RequiresServices;

use function Petrel\run;

/**
 * Base of the tests against a real MariaDB/MySQL server: the one in $MYSQL_URL.
 *
 * Without MYSQL_URL, or when the server cannot be reached, the tests are skipped — unless
 * PETREL_REQUIRE_SERVICES=1 (CI), where they fail instead. Tables made with table() get a
 * name unique to the test and are dropped afterwards; connections made with connect() are
 * closed afterwards.
 */
abstract class MysqlTestCase extends AsyncTestCase
{
    use RequiresServices;

    /** Why the server cannot be used, '' when it can; null until checked (once per run). */
    private static ?string $unavailable = null;

    /** @var list<MysqlConnection> */
    private array $opened = [];
    /** @var list<string> */
    private array $tables = [];

    protected function setUp(): void
    {
        parent::setUp();
        self::$unavailable ??= self::probe();
        if (self::$unavailable !== '') {
            self::skipUnlessRequired('MariaDB/MySQL is not available (set MYSQL_URL, e.g. mysql://user:pass@127.0.0.1:3306/test): ' . self::$unavailable);
        }
    }

    protected function tearDown(): void
    {
        foreach ($this->opened as $connection) {
            $connection->close();
        }
        $this->opened = [];
        if ($this->tables !== []) {
            $tables = $this->tables;
            $this->tables = [];
            run(static function () use ($tables): void {
                $db = MysqlConnection::connect(self::config());
                $db->execute('DROP TABLE IF EXISTS ' . \implode(', ', $tables));
                $db->close();
            });
        }
        parent::tearDown();
    }

    /**
     * $MYSQL_URL, with $options added to (or replacing) its query-string options.
     *
     * @param array<string, string> $options
     */
    protected static function config(array $options = [], ?string $password = null): DatabaseConfig
    {
        $config = DatabaseConfig::fromEnv('MYSQL_URL');

        return new DatabaseConfig(
            $config->driver,
            $config->host,
            $config->port,
            $config->user,
            $password ?? $config->password,
            $config->database,
            $config->socket,
            $options + $config->options,
        );
    }

    /** A new connection (closed after the test); call inside $this->async(). */
    protected function connect(?DatabaseConfig $config = null): MysqlConnection
    {
        $connection = MysqlConnection::connect($config ?? self::config());
        $this->opened[] = $connection;

        return $connection;
    }

    /** A table name unique to this test, dropped after it. */
    protected function table(string $name = 't'): string
    {
        $table = \sprintf('petrel_%s_%s', $name, \bin2hex(\random_bytes(4)));
        $this->tables[] = $table;

        return $table;
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

    private static function probe(): string
    {
        return self::probeService('MYSQL_URL', static function (): void {
            $db = MysqlConnection::connect(self::config(['connect_timeout' => '2']));
            $db->ping();
            $db->close();
        });
    }
}
