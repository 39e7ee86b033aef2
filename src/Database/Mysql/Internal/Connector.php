<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\Scheduler;
use Petrel\Database\ConnectionException;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\Mysql\MysqlException;
use Petrel\Database\Mysql\ProtocolException;
use Petrel\Socket\ConnectOptions;
use Petrel\Socket\SocketException;
use Petrel\Socket\TlsOptions;

use function Petrel\Socket\connect;

/**
 * The connection phase: TCP or Unix connect, the server's greeting, TLS if wanted, login
 * (through Authenticator), then SET NAMES for a character set the handshake cannot name.
 * All of it within `connect_timeout`; the caller's own deadlines apply as well.
 *
 * @internal
 */
final class Connector
{
    /**
     * @return array{Link, HandshakeV10, int, int} the link, the greeting, the negotiated
     *                                             capabilities and the server status flags
     *
     * @throws ConnectionException refused, unreachable, timed out, TLS failure, access denied…
     */
    public static function open(DatabaseConfig $config, ClientOptions $options): array
    {
        $where = $config->where();
        $started = \hrtime(true);
        try {
            $socket = connect(self::address($config), new ConnectOptions($options->connectTimeout));
        } catch (SocketException $e) {
            $reason = (string) \preg_replace('/^Could not connect to \S+: /', '', $e->getMessage());
            throw new ConnectionException("Could not connect to MySQL at {$where}: {$reason}", 0, $e);
        }
        // Read (and cached) while connected: StreamSocket asks the OS only when a write
        // fails, and a peer that has gone has no name any more ("Write to  failed").
        $socket->getRemoteAddress();
        $link = new Link($socket, $where);
        $driver = Scheduler::get()->driver;
        $timedOut = false;
        $remaining = \max(0.001, $options->connectTimeout - (\hrtime(true) - $started) / 1e9);
        $timer = $driver->delay($remaining, static function () use (&$timedOut, $socket): void {
            $timedOut = true;
            $socket->close(); // wakes the read below with a ClosedException
        });
        try {
            [$greeting, $capabilities, $status] = self::login($link, $config, $options);
            if ($options->setNames !== null) {
                $link->send(Command::query("SET NAMES {$options->setNames}"));
                $reply = $link->next();
                if (Packet::isErr($reply)) {
                    throw ErrPacket::parse($reply)->toException();
                }
            }

            return [$link, $greeting, $capabilities, $status];
        } catch (CancelledException $e) {
            $socket->close();
            throw $e; // the caller's deadline or cancellation, as it is
        } catch (\Throwable $e) {
            $socket->close();
            throw new ConnectionException(
                "Could not connect to MySQL at {$where}: " . ($timedOut
                    ? "no complete handshake within the connect_timeout of {$options->connectTimeout} s"
                    : self::reason($e)),
                $e instanceof MysqlException && !$e instanceof ProtocolException ? $e->getErrorCode() : 0,
                $e,
            );
        } finally {
            $driver->cancel($timer);
        }
    }

    /** @return array{HandshakeV10, int, int} */
    private static function login(Link $link, DatabaseConfig $config, ClientOptions $options): array
    {
        $greeting = HandshakeV10::parse($link->greeting());
        $auth = new Authenticator(
            $config->user ?? '',
            $config->password ?? '',
            $config->database,
            $options->charsetId,
            secureTransport: $config->socket !== null,
            serverPublicKey: $options->serverPublicKey,
            allowPublicKeyRetrieval: $options->publicKeyRetrieval,
        );
        $step = $auth->start($greeting, $options->tls->wants($greeting->supportsTls()));
        while (true) {
            switch ($step->action) {
                case AuthAction::Send:
                    $link->reply($step->payload);
                    $step = $auth->handle($link->next());
                    break;
                case AuthAction::Read:
                    $step = $auth->handle($link->next());
                    break;
                case AuthAction::UpgradeTls:
                    $link->reply($step->payload);
                    $host = \trim($config->host ?? 'localhost', '[]');
                    $link->socket->setupTls(self::tls($options), $host);
                    $step = $auth->tlsEstablished();
                    break;
                case AuthAction::Done:
                    \assert($step->ok !== null);

                    return [$greeting, $auth->capabilities(), $step->ok->statusFlags];
                case AuthAction::Failed:
                    throw $step->exception();
            }
        }
    }

    private static function tls(ClientOptions $options): TlsOptions
    {
        if ($options->tls === TlsMode::Verify) {
            return new TlsOptions(caFile: $options->tlsCa);
        }

        return (new TlsOptions())->withoutVerification(); // prefer/require: encrypt, trust any certificate
    }

    private static function address(DatabaseConfig $config): string
    {
        if ($config->socket !== null) {
            return 'unix://' . $config->socket;
        }
        $host = $config->host ?? 'localhost';
        if (\str_contains($host, ':') && !\str_starts_with($host, '[')) {
            $host = "[{$host}]";
        }

        return 'tcp://' . $host . ':' . ($config->port ?? 3306);
    }

    private static function reason(\Throwable $e): string
    {
        return match (true) {
            $e instanceof ProtocolException => "protocol error: {$e->getMessage()} (is it a MySQL server?)",
            $e instanceof MysqlException => \sprintf('%s (%d, SQLSTATE %s)', $e->getServerMessage(), $e->getErrorCode(), $e->getSqlState()),
            $e instanceof ConnectionException => 'the server closed the connection during the handshake',
            default => $e->getMessage(),
        };
    }
}
