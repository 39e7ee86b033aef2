<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Pgsql;

use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\TimeoutException;
use Petrel\Database\ConnectionException;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\Pgsql\Internal\ConnInfo;
use Petrel\Database\Pgsql\Internal\Handshake;
use Petrel\Database\Pgsql\Internal\Link;
use Petrel\Database\Pgsql\PgsqlConnection;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\sleep;
use function Petrel\timeout;

#[CoversClass(PgsqlConnection::class)]
#[CoversClass(Link::class)]
#[CoversClass(Handshake::class)]
final class ConnectTest extends PgsqlTestCase
{
    public function testConnectsAndAnswers(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            self::assertSame('pgsql', $db->driverName());
            self::assertTrue($db->isUsable());
            self::assertFalse($db->inTransaction());
            $db->ping();
            $row = $db->query("SELECT current_setting('application_name') AS app, current_setting('client_encoding') AS enc")[0];
            self::assertSame(['app' => 'petrel', 'enc' => 'UTF8'], $row);
            $db->close();
            self::assertFalse($db->isUsable());
            $this->expectException(ConnectionException::class);
            $this->expectExceptionMessage('is unusable: it was closed');
            $db->query('SELECT 1');
        });
    }

    public function testQueriesReuseOneReadWatcherWhichCloseCancels(): void
    {
        $this->async(function (): void {
            $driver = Scheduler::get()->driver;
            $readable = static fn (): array => \array_filter($driver->watchers(), static fn (array $w): bool => $w['type'] === 'readable');
            $db = $this->connect();
            $db->query('SELECT 1');
            $after = $readable();
            self::assertCount(1, $after, 'one watcher kept for the connection, not one made and cancelled per wait');
            $watcher = \reset($after);
            self::assertTrue($watcher['enabled'], 'kept enabled between queries: a reply waited for in place needs no enable');
            self::assertFalse($watcher['referenced'], 'an idle connection does not keep the loop running');
            $db->query('SELECT 2');
            self::assertSame(\array_keys($after), \array_keys($readable()), 'the same watcher again');
            $db->close();
            self::assertSame([], $readable(), 'closing cancels it');

            // Bytes nobody waits for (here the server's goodbye to a terminated backend) fire it
            // once, then it is disabled until the next wait, not run on every loop turn.
            $idle = $this->connect();
            $pid = $idle->query('SELECT pg_backend_pid() AS pid')[0]['pid'];
            $kept = \array_keys($readable());
            self::assertCount(1, $kept);
            $this->connect()->query('SELECT pg_terminate_backend(?)', [$pid]);
            sleep(0.1);
            self::assertFalse($readable()[$kept[0]]['enabled'], 'disabled once bytes came with nobody waiting');
            self::assertFalse($idle->isUsable());
        });
    }

    public function testSetsClientConnectionCheckIntervalOnPostgres14AndLater(): void
    {
        $this->async(function (): void {
            $db = $this->connect();
            $version = (int) $db->query('SHOW server_version_num')[0]['server_version_num'];
            if ($version < 140000) {
                self::markTestSkipped('client_connection_check_interval needs PostgreSQL 14');
            }
            self::assertSame('1s', $db->query('SHOW client_connection_check_interval')[0]['client_connection_check_interval']);
            $off = $this->connect(self::config(['client_connection_check_interval' => '0']));
            self::assertSame('0', $off->query('SHOW client_connection_check_interval')[0]['client_connection_check_interval']);
        });
    }

    public function testWrongPassword(): void
    {
        $base = self::config();
        $secret = 'not-the-password-' . \bin2hex(\random_bytes(4));
        $config = new DatabaseConfig('pgsql', $base->host, $base->port, $base->user, $secret, $base->database, $base->socket, $base->options);
        $this->async(function () use ($config, $secret): void {
            try {
                PgsqlConnection::connect($config);
                self::fail('connected with a wrong password');
            } catch (ConnectionException $e) {
                self::assertStringContainsString('Could not connect to PostgreSQL at ' . $config->where(), $e->getMessage());
                self::assertMatchesRegularExpression('/password authentication failed|authentication failed/', $e->getMessage());
                self::assertStringNotContainsString($secret, $e->getMessage());
            }
        });
    }

    public function testUnreachablePort(): void
    {
        $probe = \stream_socket_server('tcp://127.0.0.1:0');
        self::assertIsResource($probe);
        $address = (string) \stream_socket_get_name($probe, false);
        \fclose($probe); // a port nobody listens on now
        $port = (int) \substr($address, \strrpos($address, ':') + 1);
        $this->async(function () use ($port): void {
            $start = \hrtime(true);
            try {
                PgsqlConnection::connect(new DatabaseConfig('pgsql', '127.0.0.1', $port, 'petrel', 'x', 'petrel'));
                self::fail('connected to a closed port');
            } catch (ConnectionException $e) {
                self::assertStringContainsString("127.0.0.1:{$port}", $e->getMessage());
                self::assertStringContainsString('refused', $e->getMessage());
            }
            self::assertLessThan(2.0, (\hrtime(true) - $start) / 1e9);
        });
    }

    public function testConnectTimeoutWhenTheServerNeverAnswers(): void
    {
        $silent = \stream_socket_server('tcp://127.0.0.1:0'); // accepts into the backlog, never speaks
        self::assertIsResource($silent);
        $address = (string) \stream_socket_get_name($silent, false);
        $port = (int) \substr($address, \strrpos($address, ':') + 1);
        $this->async(function () use ($port): void {
            $start = \hrtime(true);
            try {
                PgsqlConnection::connect(new DatabaseConfig('pgsql', '127.0.0.1', $port, 'u', 'p', 'd', options: ['connect_timeout' => '0.3', 'sslmode' => 'disable']));
                self::fail('connected to a silent server');
            } catch (ConnectionException $e) {
                self::assertStringContainsString('timed out after 0.3 s', $e->getMessage());
            }
            $elapsed = (\hrtime(true) - $start) / 1e9;
            self::assertGreaterThan(0.25, $elapsed);
            self::assertLessThan(1.5, $elapsed);
        });
        \fclose($silent);
    }

    public function testCallersDeadlineInterruptsConnecting(): void
    {
        $silent = \stream_socket_server('tcp://127.0.0.1:0');
        self::assertIsResource($silent);
        $address = (string) \stream_socket_get_name($silent, false);
        $port = (int) \substr($address, \strrpos($address, ':') + 1);
        $this->async(function () use ($port): void {
            $this->expectException(TimeoutException::class);
            timeout(0.1, static fn () => PgsqlConnection::connect(new DatabaseConfig('pgsql', '127.0.0.1', $port, 'u', 'p', 'd', options: ['sslmode' => 'disable'])));
        });
        \fclose($silent);
    }

    public function testUnixSocket(): void
    {
        $dir = \getenv('PETREL_SERVICES_DIR') ?: '/tmp/petrel-services';
        $base = self::config();
        $port = $base->port ?? ConnInfo::DEFAULT_PORT;
        if (!\file_exists("{$dir}/.s.PGSQL.{$port}")) {
            self::markTestSkipped("no PostgreSQL socket at {$dir}/.s.PGSQL.{$port}");
        }
        $config = new DatabaseConfig('pgsql', null, $port, $base->user, $base->password, $base->database, $dir);
        $this->async(function () use ($config): void {
            $db = $this->connect($config);
            self::assertNull($db->query('SELECT inet_client_addr() AS addr')[0]['addr']); // no address: a Unix socket
        });
    }
}
