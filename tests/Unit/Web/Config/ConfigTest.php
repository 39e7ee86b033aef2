<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Config;

use Petrel\Web\Config;
use Petrel\Web\ConfigException;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(Config::class)]
final class ConfigTest extends TestCase
{
    private const ITEMS = [
        'name' => 'blog',
        'debug' => false,
        'db' => ['url' => 'sqlite:///tmp/app.db', 'pool' => ['size' => 10, 'timeout' => 2.5]],
        'servers' => ['a', 'b'],
        'secret' => null,
    ];

    public function testDotAccess(): void
    {
        $config = new Config(self::ITEMS);
        self::assertSame('blog', $config->get('name'));
        self::assertSame('sqlite:///tmp/app.db', $config->get('db.url'));
        self::assertSame(10, $config->get('db.pool.size'));
        self::assertSame(['size' => 10, 'timeout' => 2.5], $config->get('db.pool'));
        self::assertSame('b', $config->get('servers.1'));
        self::assertNull($config->get('secret', 'fallback'), 'a present null is returned, not the default');
        self::assertSame('fallback', $config->get('db.missing', 'fallback'));
        self::assertSame('fallback', $config->get('name.deeper', 'fallback'));
        self::assertNull($config->get('nope'));
        self::assertSame(self::ITEMS, $config->all());
    }

    public function testHas(): void
    {
        $config = new Config(self::ITEMS);
        self::assertTrue($config->has('db'));
        self::assertTrue($config->has('db.pool.timeout'));
        self::assertTrue($config->has('secret'));
        self::assertFalse($config->has('db.pool.max'));
        self::assertFalse($config->has(''));
    }

    public function testConstructorIgnoresTheEnvironment(): void
    {
        \putenv('APP_NAME=from-env');
        try {
            self::assertSame('blog', (new Config(self::ITEMS))->get('name'));
            self::assertSame('from-env', Config::fromArray(self::ITEMS)->get('name'), 'fromArray() reads the process environment');
            self::assertSame('blog', Config::fromArray(self::ITEMS, null)->get('name'), 'a null prefix turns overrides off');
        } finally {
            \putenv('APP_NAME');
        }
    }

    public function testEnvironmentOverridesWithCoercion(): void
    {
        $config = Config::fromArray(self::ITEMS, 'APP_', [
            'APP_DEBUG' => 'true',
            'APP_DB_URL' => 'mysql://u:p@127.0.0.1/app',
            'APP_DB_POOL_SIZE' => '32',
            'APP_DB_POOL_TIMEOUT' => '0.5',
            'APP_SECRET' => 's3cret',
            'APP_SERVERS_0' => 'c',
            'APP_UNKNOWN' => 'ignored',
            'OTHER_NAME' => 'ignored',
        ]);
        self::assertTrue($config->get('debug'));
        self::assertSame('mysql://u:p@127.0.0.1/app', $config->get('db.url'));
        self::assertSame(32, $config->get('db.pool.size'));
        self::assertSame(0.5, $config->get('db.pool.timeout'));
        self::assertSame(['size' => 32, 'timeout' => 0.5], $config->get('db.pool'), 'subtrees see the overrides');
        self::assertSame('s3cret', $config->get('secret'));
        self::assertSame(['c', 'b'], $config->get('servers'));
        self::assertSame('blog', $config->get('name'));
        self::assertFalse($config->has('unknown'));
    }

    public function testCustomPrefixAndKeyNames(): void
    {
        $config = Config::fromArray(['cache-dir' => '/tmp', 'redis' => ['url' => '']], 'BLOG_', ['BLOG_CACHE_DIR' => '/var/cache', 'BLOG_REDIS_URL' => 'redis://127.0.0.1']);
        self::assertSame('/var/cache', $config->get('cache-dir'));
        self::assertSame('redis://127.0.0.1', $config->get('redis.url'));
    }

    /** @return iterable<string, array{mixed, string, mixed}> */
    public static function coercions(): iterable
    {
        foreach (['true', 'TRUE', '1', 'yes', 'on', ' true '] as $text) {
            yield "bool {$text}" => [false, $text, true];
        }
        foreach (['false', 'False', '0', 'no', 'off', ''] as $text) {
            yield "bool '{$text}'" => [true, $text, false];
        }
        yield 'int' => [1, '42', 42];
        yield 'negative int' => [1, '-7', -7];
        yield 'float' => [1.0, '3', 3.0];
        yield 'float exponent' => [1.0, '1e3', 1000.0];
        yield 'string stays string' => ['x', '42', '42'];
        yield 'null becomes string' => [null, 'false', 'false'];
    }

    #[DataProvider('coercions')]
    public function testCoercion(mixed $original, string $env, mixed $expected): void
    {
        self::assertSame($expected, Config::fromArray(['key' => $original], 'APP_', ['APP_KEY' => $env])->get('key'));
    }

    /** @return iterable<string, array{mixed, string, string}> */
    public static function badValues(): iterable
    {
        yield 'bool' => [false, 'maybe', 'APP_KEY must be a boolean (true/false/1/0), got "maybe"'];
        yield 'int' => [1, '4.5', 'APP_KEY must be an integer, got "4.5"'];
        yield 'int text' => [1, 'ten', 'APP_KEY must be an integer, got "ten"'];
        yield 'int overflow' => [1, '99999999999999999999', 'APP_KEY must be an integer'];
        yield 'float' => [1.5, 'fast', 'APP_KEY must be a number, got "fast"'];
    }

    #[DataProvider('badValues')]
    public function testWrongTypeFailsAtBoot(mixed $original, string $env, string $message): void
    {
        $this->expectException(ConfigException::class);
        $this->expectExceptionMessage($message);
        Config::fromArray(['key' => $original], 'APP_', ['APP_KEY' => $env]);
    }

    public function testWithReturnsACopy(): void
    {
        $config = new Config(self::ITEMS);
        $changed = $config->with('db.pool.size', 20)->with('cache.driver', 'redis')->with('name.first', 'x');
        self::assertSame(10, $config->get('db.pool.size'));
        self::assertFalse($config->has('cache'));
        self::assertSame(20, $changed->get('db.pool.size'));
        self::assertSame(2.5, $changed->get('db.pool.timeout'));
        self::assertSame(['driver' => 'redis'], $changed->get('cache'));
        self::assertSame(['first' => 'x'], $changed->get('name'), 'a scalar on the path is replaced');
    }

    public function testFromFile(): void
    {
        $file = \tempnam(\sys_get_temp_dir(), 'petrel-config');
        self::assertIsString($file);
        try {
            \file_put_contents($file, "<?php return ['db' => ['url' => 'sqlite::memory:', 'port' => 5432]];");
            $config = Config::fromFile($file, 'APP_', ['APP_DB_PORT' => '6543']);
            self::assertSame('sqlite::memory:', $config->get('db.url'));
            self::assertSame(6543, $config->get('db.port'));

            // Another file: with opcache on, the same path rewritten within a second or two
            // may still be served from its cache (opcache.revalidate_freq).
            $wrong = $file . '-wrong';
            \file_put_contents($wrong, "<?php return 'nope';");
            try {
                Config::fromFile($wrong);
                self::fail('Expected ConfigException');
            } catch (ConfigException $e) {
                self::assertSame("Config file {$wrong} must return an array, got string", $e->getMessage());
            }
        } finally {
            \unlink($file);
            @\unlink($file . '-wrong');
        }
        $this->expectException(ConfigException::class);
        $this->expectExceptionMessage('Config file /nonexistent/config.php does not exist or is not readable');
        Config::fromFile('/nonexistent/config.php');
    }
}
