<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Redis;

use Petrel\Redis\RedisConfig;
use Petrel\Redis\RedisConnection;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\RequiresServices;

use function Petrel\run;

/**
 * Base of the tests against a real Redis server: the one in $REDIS_URL, database 15,
 * flushed before each test.
 *
 * Without REDIS_URL, or when the server cannot be reached, the tests are skipped — unless
 * PETREL_REQUIRE_SERVICES=1 (CI), where they fail instead.
 */
abstract class RedisTestCase extends AsyncTestCase
{
    use RequiresServices;

    protected const DATABASE = 15;

    /** Why the server cannot be used, '' when it can; null until checked (once per run). */
    private static ?string $unavailable = null;

    /** @var list<RedisConnection> */
    private array $opened = [];

    protected function setUp(): void
    {
        parent::setUp();
        self::$unavailable ??= self::probe();
        if (self::$unavailable !== '') {
            self::skipUnlessRequired('Redis is not available (set REDIS_URL, e.g. redis://127.0.0.1:6379/0): ' . self::$unavailable);
        }
        run(static function (): void {
            $redis = RedisConnection::connect(self::config());
            $redis->flushdb();
            $redis->close();
        });
    }

    protected function tearDown(): void
    {
        foreach ($this->opened as $connection) {
            $connection->close();
        }
        $this->opened = [];
        parent::tearDown();
    }

    /** $REDIS_URL with the test database. */
    protected static function config(): RedisConfig
    {
        return RedisConfig::fromEnv()->withDatabase(self::DATABASE);
    }

    /** A new connection (closed after the test), to $config or the test database. */
    protected function connect(?RedisConfig $config = null): RedisConnection
    {
        $connection = RedisConnection::connect($config ?? self::config());
        $this->opened[] = $connection;

        return $connection;
    }

    private static function probe(): string
    {
        return self::probeService('REDIS_URL', static function (): void {
            $redis = RedisConnection::connect(self::config()->withConnectTimeout(2.0));
            $redis->ping();
            $redis->close();
        });
    }
}
