<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Redis;

use Petrel\Redis\Internal\RedisUrl;
use Petrel\Redis\RedisConfig;
use Petrel\Socket\TlsOptions;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(RedisConfig::class)]
#[CoversClass(RedisUrl::class)]
final class RedisConfigTest extends TestCase
{
    public function testDefaults(): void
    {
        $config = new RedisConfig();
        self::assertSame('127.0.0.1', $config->host);
        self::assertSame(6379, $config->port);
        self::assertNull($config->unixSocket);
        self::assertNull($config->password);
        self::assertNull($config->username);
        self::assertSame(0, $config->database);
        self::assertSame(2, $config->protocol);
        self::assertNull($config->tls);
        self::assertSame('127.0.0.1:6379', $config->endpoint());
        self::assertSame('tcp://127.0.0.1:6379', $config->socketAddress());
    }

    /** NaN passed a !(t > 0) check once opcache optimized it (into t <= 0). */
    public function testANonPositiveOrNanConnectTimeoutIsRefused(): void
    {
        foreach ([0.0, -1.0, \NAN] as $timeout) {
            try {
                new RedisConfig(connectTimeout: $timeout);
                self::fail("connectTimeout {$timeout} was taken");
            } catch (\InvalidArgumentException $e) {
                self::assertStringContainsString('the connect timeout must be > 0 seconds', $e->getMessage());
            }
        }
    }

    /** @return iterable<string, array{string, array<string, mixed>}> */
    public static function urls(): iterable
    {
        yield 'host only' => ['redis://cache', ['host' => 'cache', 'port' => 6379, 'database' => 0]];
        yield 'full' => ['redis://user:pass@10.0.0.5:6380/2', [
            'host' => '10.0.0.5', 'port' => 6380, 'username' => 'user', 'password' => 'pass', 'database' => 2,
        ]];
        yield 'password alone' => ['redis://:secret@localhost', ['username' => null, 'password' => 'secret', 'host' => 'localhost']];
        yield 'trailing slash' => ['redis://localhost:7000/', ['port' => 7000, 'database' => 0]];
        yield 'upper-case scheme' => ['REDIS://h/1', ['host' => 'h', 'database' => 1]];
        yield 'percent-decoding' => ['redis://us%40er:p%3Aa%2Fss%20w@h/3', ['username' => 'us@er', 'password' => 'p:a/ss w']];
        yield 'raw special characters in the password' => ['redis://:p@ss/w?rd#x@h:1/4', ['password' => 'p@ss/w?rd#x', 'host' => 'h', 'port' => 1, 'database' => 4]];
        yield 'IPv6' => ['redis://[::1]:6390', ['host' => '::1', 'port' => 6390]];
        yield 'db option' => ['redis://h?db=5', ['database' => 5]];
        yield 'options' => ['redis://h/1?timeout=0.5&protocol=3', ['database' => 1, 'connectTimeout' => 0.5, 'protocol' => 3]];
        yield 'unix' => ['unix:///run/redis/redis.sock', ['unixSocket' => '/run/redis/redis.sock', 'database' => 0]];
        yield 'unix with db and password' => ['unix://:pw@/tmp/r%20s.sock?db=1', ['unixSocket' => '/tmp/r s.sock', 'password' => 'pw', 'database' => 1]];
        yield 'unix path with @' => ['unix:///tmp/a@b.sock', ['unixSocket' => '/tmp/a@b.sock', 'password' => null]];
        yield 'empty password means none' => ['redis://:@h', ['password' => null, 'username' => null]];
    }

    /** @param array<string, mixed> $expected */
    #[DataProvider('urls')]
    public function testParsesUrls(string $url, array $expected): void
    {
        $config = RedisConfig::fromUrl($url);
        foreach ($expected as $field => $value) {
            self::assertSame($value, $config->{$field}, $field);
        }
        self::assertNull($config->tls);
    }

    public function testRedissMeansVerifiedTls(): void
    {
        $config = RedisConfig::fromUrl('rediss://:pw@cache.internal:6380/0');
        self::assertInstanceOf(TlsOptions::class, $config->tls);
        self::assertTrue($config->tls->verifyPeer);
        self::assertSame('cache.internal:6380', $config->endpoint());
    }

    public function testEndpointAndSocketAddress(): void
    {
        self::assertSame('[::1]:6379', RedisConfig::fromUrl('redis://[::1]')->endpoint());
        self::assertSame('tcp://[::1]:6379', RedisConfig::fromUrl('redis://[::1]')->socketAddress());
        self::assertSame('/tmp/r.sock', RedisConfig::fromUrl('unix:///tmp/r.sock')->endpoint());
        self::assertSame('unix:///tmp/r.sock', RedisConfig::fromUrl('unix:///tmp/r.sock')->socketAddress());
    }

    /** @return iterable<string, array{string, string}> URL, expected part of the message */
    public static function badUrls(): iterable
    {
        yield 'no scheme' => ['localhost:6379', 'expected redis://host:port/db'];
        yield 'wrong scheme' => ['http://h', "unsupported scheme 'http'"];
        yield 'missing host' => ['redis:///0', 'the host is missing'];
        yield 'bad host' => ['redis://h st', "invalid host 'h st'"];
        yield 'port not a number' => ['redis://h:abc', "the port must be a number between 1 and 65535, 'abc' given"];
        yield 'port out of range' => ['redis://h:70000', "'70000' given"];
        yield 'port zero' => ['redis://h:0', "'0' given"];
        yield 'empty port' => ['redis://h:', "'' given"];
        yield 'bad database' => ['redis://h/abc', "the database index must be a non-negative integer, 'abc' given"];
        yield 'negative database' => ['redis://h/-1', "'-1' given"];
        yield 'database twice' => ['redis://h/1?db=2', 'the database is given twice'];
        yield 'unknown option' => ['redis://h?tiemout=1', "unknown option 'tiemout' (known: db, timeout, protocol)"];
        yield 'option without value' => ['redis://h?db', "option 'db' needs a value"];
        yield 'bad timeout' => ['redis://h?timeout=-1', "timeout must be a number of seconds > 0, '-1' given"];
        yield 'bad protocol' => ['redis://h?protocol=4', "protocol must be 2 or 3, '4' given"];
        yield 'username without password' => ['redis://secret@h', 'a username needs a password'];
        yield 'relative unix path' => ['unix://run/redis.sock', 'expected an absolute socket path'];
        yield 'fragment' => ['redis://h/0#frag', 'fragment'];
    }

    #[DataProvider('badUrls')]
    public function testRejectsBadUrlsSayingWhatIsWrong(string $url, string $message): void
    {
        try {
            RedisConfig::fromUrl($url);
            self::fail("{$url} should be refused");
        } catch (\InvalidArgumentException $e) {
            self::assertStringStartsWith('Invalid Redis URL ', $e->getMessage());
            self::assertStringContainsString($message, $e->getMessage());
        }
    }

    public function testNeverShowsThePasswordInErrors(): void
    {
        foreach (['redis://user:TOPSECRET@h:99999', 'redis://:TOPSECRET@', 'unix://:TOPSECRET@relative', 'nonsense:TOPSECRET@h'] as $url) {
            try {
                RedisConfig::fromUrl($url);
                self::fail("{$url} should be refused");
            } catch (\InvalidArgumentException $e) {
                self::assertStringNotContainsString('TOPSECRET', $e->getMessage());
                self::assertStringNotContainsString('TOPSECRET', (string) $e);
            }
        }
        $config = RedisConfig::fromUrl('redis://:TOPSECRET@h');
        self::assertStringNotContainsString('TOPSECRET', \print_r($config, true));
        \ob_start();
        \var_dump($config);
        self::assertStringNotContainsString('TOPSECRET', (string) \ob_get_clean());
    }

    public function testFromEnv(): void
    {
        $previous = \getenv('PETREL_TEST_REDIS_URL');
        try {
            \putenv('PETREL_TEST_REDIS_URL');
            self::assertSame('127.0.0.1:6379', RedisConfig::fromEnv('PETREL_TEST_REDIS_URL')->endpoint());
            \putenv('PETREL_TEST_REDIS_URL=redis://other:1234/7');
            $config = RedisConfig::fromEnv('PETREL_TEST_REDIS_URL');
            self::assertSame('other:1234', $config->endpoint());
            self::assertSame(7, $config->database);
            \putenv('PETREL_TEST_REDIS_URL=redis://:pw@h:port');
            try {
                RedisConfig::fromEnv('PETREL_TEST_REDIS_URL');
                self::fail('a bad URL in the environment should be refused');
            } catch (\InvalidArgumentException $e) {
                self::assertStringStartsWith('$PETREL_TEST_REDIS_URL: Invalid Redis URL', $e->getMessage());
                self::assertStringNotContainsString(':pw@', $e->getMessage());
            }
        } finally {
            \putenv($previous === false ? 'PETREL_TEST_REDIS_URL' : "PETREL_TEST_REDIS_URL={$previous}");
        }
    }

    public function testWithersAndValidation(): void
    {
        $config = (new RedisConfig())->withDatabase(3)->withPassword('pw', 'me')->withProtocol(3)->withConnectTimeout(1.5);
        self::assertSame([3, 'pw', 'me', 3, 1.5], [$config->database, $config->password, $config->username, $config->protocol, $config->connectTimeout]);
        self::assertNotNull($config->withTls()->tls);
        self::assertNull($config->withTls()->withTls(null)->tls);

        foreach ([
            static fn () => new RedisConfig(port: 0),
            static fn () => new RedisConfig(database: -1),
            static fn () => new RedisConfig(protocol: 1),
            static fn () => new RedisConfig(connectTimeout: 0),
            static fn () => new RedisConfig(host: ''),
            static fn () => new RedisConfig(username: 'me'),
        ] as $invalid) {
            try {
                $invalid();
                self::fail('invalid configuration accepted');
            } catch (\InvalidArgumentException $e) {
                self::assertStringStartsWith('Invalid Redis configuration: ', $e->getMessage());
            }
        }
    }
}
