<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Redis;

use Petrel\Redis\RedisConfig;
use Petrel\Redis\RedisConnection;
use Petrel\Redis\RedisConnectionException;
use Petrel\Redis\RedisException;
use PHPUnit\Framework\Attributes\CoversClass;

/**
 * AUTH with an ACL user on the shared server (a throwaway user, deleted afterwards), and
 * password-only AUTH on a private redis-server started with --requirepass on a Unix socket
 * (skipped when no redis-server binary is found).
 */
#[CoversClass(RedisConnection::class)]
final class AuthTest extends RedisTestCase
{
    private ?RedisServerProcess $private = null;

    protected function tearDown(): void
    {
        $this->private?->stop();
        parent::tearDown();
    }

    public function testAclUserAndWrongPassword(): void
    {
        $this->async(function (): void {
            $admin = $this->connect();
            $user = 'petrel-test-' . \bin2hex(\random_bytes(4));
            $password = "p@ss:/?#\0word";
            $admin->command('ACL', 'SETUSER', $user, 'on', ">{$password}", '~*', '&*', '+@all');
            try {
                foreach ([2, 3] as $protocol) {
                    $config = self::config()->withPassword($password, $user)->withProtocol($protocol);
                    $redis = $this->connect($config);
                    self::assertSame($user, $redis->command('ACL', 'WHOAMI'));
                    self::assertSame(self::DATABASE, $redis->getConfig()->database);
                    $redis->set('k', 'v');
                    self::assertSame('v', $this->connect()->get('k'), 'AUTH and SELECT both applied');

                    try {
                        $this->connect(self::config()->withPassword('wrong', $user)->withProtocol($protocol));
                        self::fail('a wrong password must be refused');
                    } catch (RedisConnectionException $e) {
                        self::assertStringContainsString('refused', $e->getMessage());
                        self::assertStringContainsString('WRONGPASS', $e->getMessage());
                        self::assertStringContainsString(self::config()->endpoint(), $e->getMessage());
                        self::assertStringNotContainsString('wrong', \str_replace('WRONGPASS', '', $e->getMessage()));
                        $previous = $e->getPrevious();
                        self::assertInstanceOf(RedisException::class, $previous);
                        self::assertSame('WRONGPASS', $previous->kind());
                    }
                }
            } finally {
                $admin->command('ACL', 'DELUSER', $user);
            }
        });
    }

    public function testRequirepassServerOverAUnixSocket(): void
    {
        $binary = RedisServerProcess::binary();
        if ($binary === null) {
            self::markTestSkipped('no redis-server binary to start a server with --requirepass (set REDIS_SERVER_BIN)');
        }
        $this->private = RedisServerProcess::start($binary, ['--requirepass', 's3cret/pa:ss']);
        $socket = $this->private->socket;
        $this->async(function () use ($socket): void {
            $url = 'unix://:' . \rawurlencode('s3cret/pa:ss') . '@' . $socket . '?db=3';
            $redis = $this->connect(RedisConfig::fromUrl($url));
            self::assertSame('PONG', $redis->ping());
            $redis->set('k', 'on db 3');
            $resp3 = $this->connect(RedisConfig::fromUrl($url . '&protocol=3'));
            self::assertSame('on db 3', $resp3->get('k'));
            self::assertSame(['databases' => '16'], $resp3->command('CONFIG', 'GET', 'databases'), 'RESP3: a map');
            self::assertSame(['databases', '16'], $redis->command('CONFIG', 'GET', 'databases'), 'RESP2: a flat list');

            try {
                $this->connect(RedisConfig::fromUrl("unix://:nope@{$socket}"));
                self::fail('a wrong password must be refused');
            } catch (RedisConnectionException $e) {
                self::assertStringContainsString("Redis at {$socket} refused AUTH: WRONGPASS", $e->getMessage());
            }

            $anonymous = $this->connect(RedisConfig::fromUrl("unix://{$socket}"));
            try {
                $anonymous->get('k');
                self::fail('NOAUTH expected');
            } catch (RedisException $e) {
                self::assertSame('NOAUTH', $e->kind());
            }
            try {
                $this->connect(RedisConfig::fromUrl("unix://{$socket}?db=1"));
                self::fail('SELECT before AUTH must be refused');
            } catch (RedisConnectionException $e) {
                self::assertStringContainsString('refused SELECT 1: NOAUTH', $e->getMessage());
            }
        });
    }
}
