<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Redis;

use Petrel\Redis\RedisConfig;
use Petrel\Redis\RedisConnection;
use Petrel\Redis\RedisConnectionException;
use Petrel\Socket\TlsOptions;
use Petrel\Tests\Support\AsyncTestCase;
use PHPUnit\Framework\Attributes\CoversClass;

/**
 * rediss:// against a private redis-server with a TLS port and a self-signed certificate
 * made for the test (skipped without a redis-server binary built with TLS, or ext-openssl).
 */
#[CoversClass(RedisConnection::class)]
final class TlsTest extends AsyncTestCase
{
    private ?RedisServerProcess $server = null;
    private string $dir = '';

    protected function tearDown(): void
    {
        $this->server?->stop();
        foreach (['cert.pem', 'key.pem'] as $file) {
            @\unlink("{$this->dir}/{$file}");
        }
        if ($this->dir !== '') {
            @\rmdir($this->dir);
        }
        parent::tearDown();
    }

    public function testRedissVerifiesThePeerAndWorks(): void
    {
        $binary = RedisServerProcess::binary();
        if ($binary === null || !\extension_loaded('openssl')) {
            self::markTestSkipped('needs a redis-server binary and ext-openssl');
        }
        $this->dir = \sys_get_temp_dir() . '/petrel-redis-tls-' . \bin2hex(\random_bytes(4));
        \mkdir($this->dir, 0700);
        [$cert, $key] = $this->selfSignedCertificate();
        $port = $this->freePort();
        try {
            $this->server = RedisServerProcess::start($binary, [
                '--tls-port', (string) $port, '--tls-cert-file', $cert, '--tls-key-file', $key,
                '--tls-ca-cert-file', $cert, '--tls-auth-clients', 'no',
            ]);
        } catch (\RuntimeException $e) {
            self::markTestSkipped('redis-server without TLS support? ' . $e->getMessage());
        }

        $this->async(function () use ($port, $cert): void {
            $config = RedisConfig::fromUrl("rediss://localhost:{$port}/2");
            try {
                RedisConnection::connect($config);
                self::fail('an unknown CA must be refused');
            } catch (RedisConnectionException $e) {
                self::assertStringStartsWith("TLS handshake with Redis at localhost:{$port} failed: ", $e->getMessage());
            }

            $redis = RedisConnection::connect($config->withTls((new TlsOptions())->withCaFile($cert)));
            $value = \random_bytes(300_000);
            self::assertTrue($redis->set('k', $value));
            self::assertSame($value, $redis->get('k'));
            $info = $redis->command('CLIENT', 'INFO');
            self::assertIsString($info);
            self::assertStringContainsString(' db=2 ', $info);
            $redis->close();
        });
    }

    /** @return array{string, string} certificate and key files for CN=localhost */
    private function selfSignedCertificate(): array
    {
        $config = ['digest_alg' => 'sha256', 'private_key_bits' => 2048, 'private_key_type' => \OPENSSL_KEYTYPE_RSA];
        $key = \openssl_pkey_new($config);
        self::assertNotFalse($key);
        $csr = \openssl_csr_new(['commonName' => 'localhost'], $key, $config);
        self::assertNotFalse($csr);
        $x509 = \openssl_csr_sign($csr, null, $key, 1, $config);
        self::assertNotFalse($x509);
        \openssl_x509_export_to_file($x509, "{$this->dir}/cert.pem");
        \openssl_pkey_export_to_file($key, "{$this->dir}/key.pem");

        return ["{$this->dir}/cert.pem", "{$this->dir}/key.pem"];
    }

    /** A port free at the time of asking (the kernel's pick for port 0). */
    private function freePort(): int
    {
        $probe = \stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($probe);
        $name = (string) \stream_socket_get_name($probe, false);
        \fclose($probe);

        return (int) \substr($name, (int) \strrpos($name, ':') + 1);
    }
}
