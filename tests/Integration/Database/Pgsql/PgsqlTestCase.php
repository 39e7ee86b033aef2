<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Pgsql;

use Petrel\Database\DatabaseConfig;
use Petrel\Database\Pgsql\PgsqlConnection;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\RequiresServices;

use function Petrel\run;

/**
 * Base of the tests against a real PostgreSQL server: the one in $PGSQL_URL
 * (pgsql://user:pass@host:port/db; the user needs CREATE on the database, and superuser
 * or pg_signal_backend for the pg_terminate_backend tests).
 *
 * Without PGSQL_URL, or when the server cannot be reached, the tests are skipped — unless
 * PETREL_REQUIRE_SERVICES=1 (CI), where they fail instead. Tables made with table() are
 * dropped after each test.
 */
abstract class PgsqlTestCase extends AsyncTestCase
{
    use RequiresServices;

    /** Why the server cannot be used, '' when it can; null until checked (once per run). */
    private static ?string $unavailable = null;

    /** @var list<PgsqlConnection> */
    private array $opened = [];
    /** @var list<string> */
    private array $tables = [];

    protected function setUp(): void
    {
        parent::setUp();
        self::$unavailable ??= self::probe();
        if (self::$unavailable !== '') {
            self::skipUnlessRequired('PostgreSQL is not available (set PGSQL_URL, e.g. pgsql://user:pass@127.0.0.1:5432/db): ' . self::$unavailable);
        }
    }

    protected function tearDown(): void
    {
        $opened = $this->opened;
        $tables = $this->tables;
        $this->opened = [];
        $this->tables = [];
        run(static function () use ($opened, $tables): void {
            foreach ($opened as $connection) {
                $connection->close();
            }
            if ($tables !== []) {
                $cleaner = PgsqlConnection::connect(self::config());
                $cleaner->execute('DROP TABLE IF EXISTS ' . \implode(', ', $tables));
                $cleaner->close();
            }
        });
        parent::tearDown();
    }

    /**
     * $PGSQL_URL with extra options (URL query keys: connect_timeout, sslmode…).
     *
     * @param array<string, string> $options
     */
    protected static function config(array $options = []): DatabaseConfig
    {
        $config = DatabaseConfig::fromEnv('PGSQL_URL');
        if ($options === []) {
            return $config;
        }

        return new DatabaseConfig(
            $config->driver,
            $config->host,
            $config->port,
            $config->user,
            $config->password,
            $config->database,
            $config->socket,
            $options + $config->options,
        );
    }

    /** A new connection, closed after the test. */
    protected function connect(?DatabaseConfig $config = null): PgsqlConnection
    {
        $connection = PgsqlConnection::connect($config ?? self::config());
        $this->opened[] = $connection;

        return $connection;
    }

    /** A unique table name, dropped after the test. */
    protected function table(string $prefix = 't'): string
    {
        $name = "petrel_{$prefix}_" . \bin2hex(\random_bytes(5));
        $this->tables[] = $name;

        return $name;
    }

    private static function probe(): string
    {
        if (!\extension_loaded('pgsql')) {
            return 'the pgsql extension is not loaded';
        }

        return self::probeService('PGSQL_URL', static function (): void {
            $connection = PgsqlConnection::connect(self::config(['connect_timeout' => '3']));
            $connection->ping();
            $connection->close();
        });
    }
}
