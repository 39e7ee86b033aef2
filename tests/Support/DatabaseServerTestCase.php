<?php

declare(strict_types=1);

namespace Petrel\Tests\Support;

use Petrel\Database\Connection;
use Petrel\Database\DatabaseConfig;

use function Petrel\run;

/**
 * Base of the tests against a real database server, the one in the URL variable a subclass
 * names (MYSQL_URL, PGSQL_URL).
 *
 * Without it, or when the server cannot be reached, the tests are skipped — unless
 * PETREL_REQUIRE_SERVICES=1 (CI), where they fail instead. Connections made with connect()
 * are closed and tables named by table() dropped after each test.
 *
 * @template C of Connection
 */
abstract class DatabaseServerTestCase extends AsyncTestCase
{
    use RequiresServices;

    /** @var array<class-string, string> why each server cannot be used, '' when it can (checked once per run) */
    private static array $unavailable = [];

    /** @var list<C> */
    private array $opened = [];
    /** @var list<string> */
    private array $tables = [];

    /** The environment variable holding the server's URL. */
    abstract protected static function urlVariable(): string;

    /** The server's name and an example URL, for the skip message. */
    abstract protected static function describeServer(): string;

    /** @return C */
    abstract protected static function open(DatabaseConfig $config): Connection;

    /** Why the server cannot be used whatever its URL ('' when nothing stands in the way). */
    protected static function missingExtension(): string
    {
        return '';
    }

    protected function setUp(): void
    {
        parent::setUp();
        $unavailable = self::$unavailable[static::class] ??= static::probe();
        if ($unavailable !== '') {
            self::skipUnlessRequired(static::describeServer() . ' is not available: ' . $unavailable);
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
                $cleaner = static::open(static::config());
                $cleaner->execute('DROP TABLE IF EXISTS ' . \implode(', ', $tables));
                $cleaner->close();
            }
        });
        parent::tearDown();
    }

    /**
     * The server's URL, with $options added to (or replacing) its query-string options
     * (connect_timeout, statement_cache, tls…), and another password if given.
     *
     * @param array<string, string> $options
     */
    protected static function config(array $options = [], ?string $password = null): DatabaseConfig
    {
        $config = DatabaseConfig::fromEnv(static::urlVariable());
        if ($options === [] && $password === null) {
            return $config;
        }

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

    /**
     * A new connection, closed after the test; call inside $this->async().
     *
     * @return C
     */
    protected function connect(?DatabaseConfig $config = null): Connection
    {
        $connection = static::open($config ?? static::config());
        $this->opened[] = $connection;

        return $connection;
    }

    /** A table name unique to this test, dropped after it. */
    protected function table(string $name = 't'): string
    {
        $table = \sprintf('petrel_%s_%s', $name, \bin2hex(\random_bytes(5)));
        $this->tables[] = $table;

        return $table;
    }

    private static function probe(): string
    {
        $missing = static::missingExtension();
        if ($missing !== '') {
            return $missing;
        }

        return self::probeService(static::urlVariable(), static function (): void {
            $connection = static::open(static::config(['connect_timeout' => '3']));
            $connection->ping();
            $connection->close();
        });
    }
}
