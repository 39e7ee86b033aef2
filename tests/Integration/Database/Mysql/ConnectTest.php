<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Mysql;

use Petrel\Coroutine\TimeoutException;
use Petrel\Database\ConnectionException;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\DatabaseError;
use Petrel\Database\Mysql\Internal\ClientOptions;
use Petrel\Database\Mysql\Internal\Connector;
use Petrel\Database\Mysql\MysqlConnection;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\Socket\listen;
use function Petrel\timeout;

#[CoversClass(MysqlConnection::class)]
#[CoversClass(Connector::class)]
#[CoversClass(ClientOptions::class)]
final class ConnectTest extends MysqlTestCase
{
    public function testConnectsLogsInAndAnswers(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            self::assertSame('mysql', $db->driverName());
            self::assertNotSame('', $db->serverVersion());
            self::assertStringNotContainsString('5.5.5-', $db->serverVersion());
            $row = $db->query('SELECT CONNECTION_ID() AS id, DATABASE() AS db, @@character_set_client AS cs, @@autocommit AS ac')[0];
            self::assertSame(['id' => $db->connectionId(), 'db' => self::config()->database, 'cs' => 'utf8mb4', 'ac' => 1], $row);
            $db->ping();
            self::assertTrue($db->isUsable());
            self::assertFalse($db->inTransaction());
        });
    }

    public function testAWrongPasswordIsAConnectionExceptionThatDoesNotEchoIt(): void
    {
        $password = 'not-the-password-' . \bin2hex(\random_bytes(4));
        $config = self::config(password: $password);
        $this->async(function () use ($config, $password): void {
            try {
                MysqlConnection::connect($config);
                self::fail('a wrong password must be refused');
            } catch (ConnectionException $e) {
                self::assertStringStartsWith("Could not connect to MySQL at {$config->where()}: Access denied for user '{$config->user}'@", $e->getMessage());
                self::assertStringEndsWith('(1045, SQLSTATE 28000)', $e->getMessage());
                self::assertSame(1045, $e->getCode());
                self::assertStringNotContainsString($password, (string) $e);
            }
        });
    }

    public function testAnUnknownDatabaseIsAConnectionException(): void
    {
        $base = self::config();
        $config = new DatabaseConfig('mysql', $base->host, $base->port, $base->user, $base->password, 'petrel_no_such_db');
        $this->async(function () use ($config): void {
            $this->expectException(ConnectionException::class);
            $this->expectExceptionCode(1049);
            $this->expectExceptionMessage("Unknown database 'petrel_no_such_db' (1049, SQLSTATE 42000)");
            MysqlConnection::connect($config);
        });
    }

    public function testARefusedPortIsAConnectionException(): void
    {
        $probe = \stream_socket_server('tcp://127.0.0.1:0');
        self::assertNotFalse($probe);
        $name = (string) \stream_socket_get_name($probe, false);
        \fclose($probe); // nobody listens there now
        $config = DatabaseConfig::fromUrl("mysql://u:p@{$name}/db");
        $this->async(function () use ($config, $name): void {
            $this->expectException(ConnectionException::class);
            $this->expectExceptionMessage("Could not connect to MySQL at {$name}: ");
            MysqlConnection::connect($config);
        });
    }

    public function testAServerThatNeverGreetsTimesOutAfterConnectTimeout(): void
    {
        $this->async(function (): void {
            $server = listen('127.0.0.1:0'); // the kernel completes the TCP handshake; nobody speaks
            $address = $server->getAddress();
            $started = \hrtime(true);
            try {
                MysqlConnection::connect(DatabaseConfig::fromUrl("mysql://u:p@{$address}/db?connect_timeout=0.3"));
                self::fail('a silent server must time out');
            } catch (ConnectionException $e) {
                self::assertSame("Could not connect to MySQL at {$address}: no complete handshake within the connect_timeout of 0.3 s", $e->getMessage());
            } finally {
                $server->close();
            }
            $elapsed = (\hrtime(true) - $started) / 1e9;
            self::assertGreaterThanOrEqual(0.29, $elapsed);
            self::assertLessThan(1.5, $elapsed);
        });
    }

    public function testTheCallersDeadlineCutsConnectShort(): void
    {
        $this->async(function (): void {
            $server = listen('127.0.0.1:0');
            $config = DatabaseConfig::fromUrl("mysql://u:p@{$server->getAddress()}/db?connect_timeout=5");
            try {
                timeout(0.1, static fn () => MysqlConnection::connect($config));
                self::fail('the deadline must interrupt the handshake');
            } catch (TimeoutException $e) {
                self::assertSame('Timed out after 0.1 s', $e->getMessage(), 'the caller\'s own exception, as it is');
            } finally {
                $server->close();
            }
        });
    }

    public function testConnectsOverTheUnixSocket(): void
    {
        $this->async(function (): void {
            $path = $this->connect()->query('SELECT @@socket AS s')[0]['s'];
            if (!\is_string($path) || !\file_exists($path)) {
                self::markTestSkipped('the server\'s Unix socket is not on this machine');
            }
            $base = self::config();
            $db = $this->connect(new DatabaseConfig('mysql', 'localhost', null, $base->user, $base->password, $base->database, $path));
            $host = $db->query('SELECT HOST AS h FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()')[0]['h'];
            self::assertSame('localhost', $host, 'a Unix socket connection shows as localhost, TCP as ip:port');
            self::assertSame([['n' => 2]], $db->query('SELECT ? + 1 AS n', [1]));
        });
    }

    public function testWithoutTlsOnTheServerDisableAndPreferConnectInPlainTextAndRequireFails(): void
    {
        $this->async(function (): void {
            $have = $this->connect()->query("SELECT @@have_ssl AS s")[0]['s'];
            if ($have === 'YES') {
                self::markTestSkipped('this server has TLS configured; TlsTest covers it');
            }
            foreach (['disable', 'prefer'] as $mode) {
                $db = $this->connect(self::config(['tls' => $mode]));
                $cipher = $db->query("SHOW SESSION STATUS LIKE 'Ssl_cipher'")[0]['Value'];
                self::assertSame('', $cipher, "tls={$mode}");
            }
            try {
                MysqlConnection::connect(self::config(['tls' => 'require']));
                self::fail('tls=require must fail when the server cannot do TLS');
            } catch (ConnectionException $e) {
                self::assertStringEndsWith(': TLS was requested but the server does not support it (2026, SQLSTATE HY000)', $e->getMessage());
                self::assertSame(2026, $e->getCode());
            }
        });
    }

    public function testTheCharsetOption(): void
    {
        $this->async(function (): void {
            $latin1 = $this->connect(self::config(['charset' => 'latin1']));
            self::assertSame('latin1', $latin1->query('SELECT @@character_set_client AS c')[0]['c']);
            // Not nameable in the handshake: set with SET NAMES after login.
            $cp1250 = $this->connect(self::config(['charset' => 'cp1250']));
            self::assertSame('cp1250', $cp1250->query('SELECT @@character_set_results AS c')[0]['c']);
            try {
                MysqlConnection::connect(self::config(['charset' => 'klingon']));
                self::fail('an unknown charset must fail');
            } catch (ConnectionException $e) {
                self::assertSame(1115, $e->getCode());
            }
        });
    }

    public function testInvalidOptionsAreErrors(): void
    {
        $this->async(function (): void {
            foreach (['tls' => 'maybe', 'connect_timeout' => 'soon', 'kill_on_cancel' => 'perhaps', 'charset' => "utf8'; DROP"] as $name => $value) {
                try {
                    MysqlConnection::connect(self::config([$name => $value]));
                    self::fail("{$name}={$value} must be refused");
                } catch (DatabaseError $e) {
                    self::assertStringContainsString('MySQL', $e->getMessage());
                }
            }
        });
    }

    public function testCloseIsIdempotentAndALaterCallFails(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $db->close();
            $db->close();
            self::assertFalse($db->isUsable());
            $this->expectException(ConnectionException::class);
            $this->expectExceptionMessage('is unusable: it was closed');
            $db->query('SELECT 1');
        });
    }

    public function testLoopbackDefaultsToPlainTextAndRemoteHostsPreferTls(): void
    {
        self::assertSame('disable', ClientOptions::from(DatabaseConfig::fromUrl('mysql://u@127.0.0.1/db'))->tls->value);
        self::assertSame('disable', ClientOptions::from(DatabaseConfig::fromUrl('mysql://u@localhost/db?socket=/run/mysqld.sock'))->tls->value);
        self::assertSame('prefer', ClientOptions::from(DatabaseConfig::fromUrl('mysql://u@db.internal/db'))->tls->value);
        self::assertSame('prefer', ClientOptions::from(DatabaseConfig::fromUrl('mysql://u@127.0.0.1/db?tls=prefer'))->tls->value);
        self::assertFalse(ClientOptions::from(DatabaseConfig::fromUrl('mysql://u@10.0.0.5/db'))->publicKeyRetrieval);
        self::assertTrue(ClientOptions::from(DatabaseConfig::fromUrl('mysql://u@[::1]/db'))->publicKeyRetrieval);
    }
}
