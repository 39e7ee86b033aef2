<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Mysql;

use Closure;
use Petrel\Coroutine\Coroutine;
use Petrel\Database\ConnectionException;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\Mysql\Internal\Capability;
use Petrel\Database\Mysql\Internal\PacketFramer;
use Petrel\Database\Mysql\MysqlConnection;
use Petrel\Socket\Socket;
use Petrel\Socket\SocketServer;
use Petrel\Tests\Support\AsyncTestCase;
use PHPUnit\Framework\Attributes\CoversClass;

use function Petrel\go;
use function Petrel\Socket\listen;

/**
 * A fake server on a local port, speaking just enough of the protocol to let a client log
 * in, then breaking it: the client must fail with a ConnectionException and become
 * unusable. Needs no database.
 */
#[CoversClass(MysqlConnection::class)]
final class MisbehavingServerTest extends AsyncTestCase
{
    public function testNotAMysqlServerIsAProtocolErrorAtConnect(): void
    {
        $this->async(function (): void {
            [$server, $session] = $this->serve(static function (Socket $client): void {
                $client->write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
            });
            try {
                MysqlConnection::connect($this->config($server));
                self::fail('an HTTP server is no MySQL server');
            } catch (ConnectionException $e) {
                self::assertStringContainsString(': protocol error: ', $e->getMessage());
            }
            $session->join();
            $server->close();
        });
    }

    public function testAPacketOutOfOrderMidQueryBreaksTheConnection(): void
    {
        $this->async(function (): void {
            [$server, $session] = $this->serve(static function (Socket $client): void {
                self::login($client);
                self::readPacket($client); // COM_QUERY
                $client->write(PacketFramer::frame("\x01", 5)); // should have been sequence id 1
                $client->read(); // until the client hangs up
            });
            $db = MysqlConnection::connect($this->config($server));
            try {
                $db->query('SELECT 1');
                self::fail('a packet out of order must fail');
            } catch (ConnectionException $e) {
                self::assertSame(
                    "Lost connection to MySQL at {$server->getAddress()}: protocol error: Packet out of order: expected sequence id 1, got 5",
                    $e->getMessage(),
                );
            }
            self::assertFalse($db->isUsable());
            $session->join();
            $server->close();
        });
    }

    public function testTheServerHangingUpMidResultIsALostConnection(): void
    {
        $this->async(function (): void {
            [$server, $session] = $this->serve(static function (Socket $client): void {
                self::login($client);
                self::readPacket($client);
                $client->write(PacketFramer::frame("\x01", 1)); // one column follows... never
                $client->close();
            });
            $db = MysqlConnection::connect($this->config($server));
            self::assertTrue($db->isUsable());
            try {
                $db->query('SELECT 1');
                self::fail('a half answer must fail');
            } catch (ConnectionException $e) {
                self::assertSame("Lost connection to MySQL at {$server->getAddress()}: the server closed the connection", $e->getMessage());
            }
            self::assertFalse($db->isUsable());
            $session->join();
            $server->close();
        });
    }

    /**
     * A server on a free local port running $session for the one client it accepts.
     *
     * @param Closure(Socket): void $session
     * @return array{SocketServer, Coroutine}
     */
    private function serve(Closure $session): array
    {
        $server = listen('127.0.0.1:0');
        $coroutine = go(static function () use ($server, $session): void {
            $client = $server->accept();
            if ($client !== null) {
                $session($client);
                $client->close();
            }
        });

        return [$server, $coroutine];
    }

    private function config(SocketServer $server): DatabaseConfig
    {
        return DatabaseConfig::fromUrl("mysql://user:secret@{$server->getAddress()}/db?connect_timeout=2");
    }

    /** Greets (HandshakeV10), accepts whatever login comes, answers OK. */
    private static function login(Socket $client): void
    {
        $capabilities = Capability::LONG_PASSWORD | Capability::PROTOCOL_41 | Capability::SECURE_CONNECTION
            | Capability::PLUGIN_AUTH | Capability::TRANSACTIONS | Capability::CONNECT_WITH_DB
            | Capability::DEPRECATE_EOF | Capability::PLUGIN_AUTH_LENENC_CLIENT_DATA;
        $greeting = "\x0A" . "8.0.99-fake\0" . \pack('V', 7) . '12345678' . "\0"
            . \pack('v', $capabilities & 0xFFFF) . \chr(45) . \pack('v', 2) . \pack('v', $capabilities >> 16)
            . \chr(21) . \str_repeat("\0", 10) . "abcdefghijkl\0" . "mysql_native_password\0";
        $client->write(PacketFramer::frame($greeting, 0));
        self::readPacket($client);
        $client->write(PacketFramer::frame("\x00\x00\x00\x02\x00\x00\x00", 2));
    }

    private static function readPacket(Socket $client): string
    {
        $header = $client->readExactly(4);
        $length = \ord($header[0]) | (\ord($header[1]) << 8) | (\ord($header[2]) << 16);

        return $length === 0 ? '' : $client->readExactly($length);
    }
}
