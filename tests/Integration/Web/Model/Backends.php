<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Web\Model;

use Petrel\Database\Database;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\Mysql\MysqlConnection;
use Petrel\Database\Pgsql\PgsqlConnection;
use Petrel\Pool\PoolConfig;
use PHPUnit\Framework\Assert;

/**
 * The databases the model suites run on: SQLite always; MariaDB and PostgreSQL when their
 * connection classes exist and MYSQL_URL / PGSQL_URL are set. A missing one is skipped, or
 * fails the test when PETREL_REQUIRE_SERVICES=1 (CI).
 */
final class Backends
{
    public const USERS = 'petrel_model_users';
    public const POSTS = 'petrel_model_posts';

    /** @return array<string, array{string}> */
    public static function all(): array
    {
        return ['sqlite' => ['sqlite'], 'mysql' => ['mysql'], 'pgsql' => ['pgsql']];
    }

    /** A Database for $backend with the two tables freshly created (or the test is skipped). */
    public static function open(string $backend, string $sqliteFile, int $poolSize = 10): Database
    {
        $url = match ($backend) {
            'sqlite' => "sqlite://{$sqliteFile}",
            'mysql' => self::serviceUrl('MYSQL_URL', MysqlConnection::class),
            'pgsql' => self::serviceUrl('PGSQL_URL', PgsqlConnection::class),
            default => throw new \LogicException("Unknown backend {$backend}"),
        };
        $db = new Database(DatabaseConfig::fromUrl($url), new PoolConfig(max: $poolSize));
        self::drop($db);
        foreach (self::schema($backend) as $statement) {
            $db->execute($statement);
        }

        return $db;
    }

    public static function drop(Database $db): void
    {
        $cascade = $db->driverName() === 'pgsql' ? ' CASCADE' : '';
        $db->execute('DROP TABLE IF EXISTS ' . self::POSTS . $cascade);
        $db->execute('DROP TABLE IF EXISTS ' . self::USERS . $cascade);
    }

    /** @return list<string> */
    private static function schema(string $backend): array
    {
        [$id, $bool, $float, $json, $datetime, $string] = match ($backend) {
            'sqlite' => ['INTEGER PRIMARY KEY AUTOINCREMENT', 'INTEGER', 'REAL', 'TEXT', 'TEXT', 'TEXT'],
            'mysql' => ['INT AUTO_INCREMENT PRIMARY KEY', 'TINYINT(1)', 'DOUBLE', 'TEXT', 'DATETIME', 'VARCHAR(190)'],
            'pgsql' => ['SERIAL PRIMARY KEY', 'BOOLEAN', 'DOUBLE PRECISION', 'JSONB', 'TIMESTAMP(0)', 'VARCHAR(190)'],
            default => throw new \LogicException("Unknown backend {$backend}"),
        };
        $true = $backend === 'pgsql' ? 'TRUE' : '1';

        return [
            'CREATE TABLE ' . self::USERS . " (id {$id}, name {$string} NOT NULL, email {$string}, age INT, active {$bool} NOT NULL DEFAULT {$true},"
                . " score {$float}, balance DECIMAL(12,2), meta {$json}, born_at {$datetime} NULL, created_at {$datetime} NULL, updated_at {$datetime} NULL)",
            'CREATE TABLE ' . self::POSTS . " (id {$id}, user_id INT NOT NULL REFERENCES " . self::USERS . "(id), title {$string} NOT NULL)",
        ];
    }

    private static function serviceUrl(string $variable, string $class): string
    {
        $url = \getenv($variable);
        $missing = match (true) {
            !\class_exists($class) => "{$class} does not exist yet",
            !\is_string($url) || $url === '' => "{$variable} is not set",
            default => null,
        };
        if ($missing === null && \is_string($url)) {
            return $url;
        }
        if (\getenv('PETREL_REQUIRE_SERVICES') === '1') {
            Assert::fail("{$missing} (PETREL_REQUIRE_SERVICES=1 forbids skipping)");
        }
        Assert::markTestSkipped((string) $missing);
    }
}
