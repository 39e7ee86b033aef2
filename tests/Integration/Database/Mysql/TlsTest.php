<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Mysql;

use Petrel\Database\ConnectionException;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\Mysql\Internal\Connector;
use Petrel\Database\Mysql\MysqlConnection;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\RequiresServices;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\run;

/**
 * TLS against a private MariaDB started for this class with a self-signed certificate for
 * CN=localhost (the shared test server has no TLS configured). The client asks for TLS in
 * the handshake (SSLRequest), upgrades the socket mid-stream, then logs in over TLS.
 */
#[CoversClass(MysqlConnection::class)]
#[CoversClass(Connector::class)]
final class TlsTest extends AsyncTestCase
{
    use RequiresServices;

    private static ?MariaDbServerProcess $server = null;
    private static ?string $unavailable = null;

    public static function setUpBeforeClass(): void
    {
        self::$unavailable = MariaDbServerProcess::unavailable() ?? (\extension_loaded('openssl') ? null : 'ext-openssl is missing');
        if (self::$unavailable !== null) {
            return;
        }
        try {
            $dir = \sys_get_temp_dir() . '/petrel-tls-' . \bin2hex(\random_bytes(4));
            \mkdir($dir, 0700);
            self::certificate($dir);
            self::$server = MariaDbServerProcess::start(["--ssl-cert={$dir}/cert.pem", "--ssl-key={$dir}/key.pem"]);
            \rename("{$dir}/cert.pem", self::$server->dir . '/cert.pem');
            \unlink("{$dir}/key.pem");
            \rmdir($dir);
            run(static function (): void {
                $root = MysqlConnection::connect(new DatabaseConfig('mysql', 'localhost', null, 'root', '', null, self::$server?->socket));
                $root->execute("CREATE USER 'app'@'127.0.0.1' IDENTIFIED BY 'secret'");
                $root->execute("GRANT ALL ON *.* TO 'app'@'127.0.0.1'");
                $root->execute("CREATE USER 'strict'@'127.0.0.1' IDENTIFIED BY 'secret' REQUIRE SSL");
                $root->close();
            });
        } catch (\Throwable $e) {
            self::$unavailable = 'could not start a private MariaDB with TLS: ' . $e->getMessage();
        }
    }

    public static function tearDownAfterClass(): void
    {
        self::$server?->stop();
        self::$server = null;
    }

    protected function setUp(): void
    {
        parent::setUp();
        if (self::$unavailable !== null) {
            self::skipUnlessRequired(self::$unavailable);
        }
    }

    public function testRequireEncryptsAndEverythingWorksOverTls(): void
    {
        $this->async(function (): void {
            $db = MysqlConnection::connect(self::config('127.0.0.1', 'app', ['tls' => 'require']));
            self::assertMatchesRegularExpression('/^TLSv1\.[23]$/', self::sessionStatus($db, 'Ssl_version'));
            self::assertNotSame('', self::sessionStatus($db, 'Ssl_cipher'));
            $blob = \random_bytes(1_000_000); // many TLS records each way
            self::assertSame([['b' => $blob]], $db->query('SELECT ? AS b', [$blob]));
            $count = 0;
            foreach ($db->stream('SELECT seq FROM seq_1_to_20000') as $row) {
                $count += $row['seq'] > 0 ? 1 : 0;
            }
            self::assertSame(20_000, $count);
            $db->ping();
            self::assertTrue($db->isUsable());
            $db->close();
        });
    }

    public function testPreferUsesTlsWhenOfferedButLoopbackDefaultsToPlainText(): void
    {
        $this->async(function (): void {
            $preferred = MysqlConnection::connect(self::config('127.0.0.1', 'app', ['tls' => 'prefer']));
            self::assertNotSame('', self::sessionStatus($preferred, 'Ssl_cipher'));
            $preferred->close();
            $default = MysqlConnection::connect(self::config('127.0.0.1', 'app'));
            self::assertSame('', self::sessionStatus($default, 'Ssl_cipher'), 'loopback: no TLS unless asked for');
            $default->close();
        });
    }

    public function testVerifyChecksTheCertificateAgainstTheCa(): void
    {
        $this->async(function (): void {
            try {
                MysqlConnection::connect(self::config('localhost', 'app', ['tls' => 'verify']));
                self::fail('a self-signed certificate must not verify against the system CAs');
            } catch (ConnectionException $e) {
                self::assertStringContainsString('TLS handshake with localhost failed', $e->getMessage());
            }
            $ca = self::$server?->dir . '/cert.pem';
            $db = MysqlConnection::connect(self::config('localhost', 'app', ['tls' => 'verify', 'tls_ca' => $ca]));
            self::assertNotSame('', self::sessionStatus($db, 'Ssl_cipher'));
            $db->close();
        });
    }

    public function testAnAccountThatRequiresSslIsRefusedWithoutIt(): void
    {
        $this->async(function (): void {
            try {
                MysqlConnection::connect(self::config('127.0.0.1', 'strict', ['tls' => 'disable']));
                self::fail('REQUIRE SSL must refuse a plain-text login');
            } catch (ConnectionException $e) {
                self::assertSame(1045, $e->getCode());
            }
            $db = MysqlConnection::connect(self::config('127.0.0.1', 'strict', ['tls' => 'require']));
            self::assertSame([['u' => 'strict@127.0.0.1']], $db->query('SELECT CURRENT_USER() AS u'));
            $db->close();
        });
    }

    /** @param array<string, string> $options */
    private static function config(string $host, string $user, array $options = []): DatabaseConfig
    {
        $database = $user === 'app' ? 'mysql' : null; // seq_1_to_N needs a current database

        return new DatabaseConfig('mysql', $host, self::$server?->port, $user, 'secret', $database, null, $options);
    }

    private static function sessionStatus(MysqlConnection $db, string $name): string
    {
        $value = $db->query("SHOW SESSION STATUS LIKE '{$name}'")[0]['Value'] ?? null; // SHOW takes no placeholders
        self::assertIsString($value);

        return $value;
    }

    private static function certificate(string $dir): void
    {
        $config = ['digest_alg' => 'sha256', 'private_key_bits' => 2048, 'private_key_type' => \OPENSSL_KEYTYPE_RSA];
        $key = \openssl_pkey_new($config);
        \assert($key !== false);
        $csr = \openssl_csr_new(['commonName' => 'localhost'], $key, $config);
        \assert($csr !== false && $csr !== true);
        $x509 = \openssl_csr_sign($csr, null, $key, 1, $config);
        \assert($x509 !== false);
        \openssl_x509_export_to_file($x509, "{$dir}/cert.pem");
        \openssl_pkey_export_to_file($key, "{$dir}/key.pem");
    }
}
