<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Petrel\Coroutine\Scheduler;
use Petrel\Database\ConnectionException;
use PgSql\Connection as PgConnection;
use Throwable;

/**
 * Opens a libpq connection without blocking: pg_connect(PGSQL_CONNECT_ASYNC), then
 * pg_connect_poll() each time the socket is ready for what it last asked (writable first),
 * within a deadline of our own (libpq ignores connect_timeout in async mode). libpq still
 * resolves a host name before it starts; an IP address or a Unix socket never blocks.
 *
 * @internal
 */
final class Handshake
{
    /**
     * @return array{PgConnection, PgSocket}
     * @throws ConnectionException refused, rejected (libpq's message), or timed out
     */
    public static function connect(string $conninfo, string $where, float $timeout, ?string $password): array
    {
        \error_clear_last();
        $handle = @\pg_connect($conninfo, \PGSQL_CONNECT_ASYNC | \PGSQL_CONNECT_FORCE_NEW);
        if ($handle === false) {
            $message = \error_get_last()['message'] ?? '';
            throw self::failed($where, (string) \preg_replace('/^pg_connect\(\): (Unable to connect to PostgreSQL server: )?/', '', $message), $password);
        }
        $stream = \pg_connection_status($handle) === \PGSQL_CONNECTION_BAD ? false : \pg_socket($handle);
        if ($stream === false) {
            $message = \pg_last_error($handle);
            \pg_close($handle);
            throw self::failed($where, $message, $password);
        }
        $socket = new PgSocket($stream);
        $driver = Scheduler::get()->driver;
        $timer = $driver->delay($timeout, static function () use ($socket, $where, $timeout): void {
            $socket->interrupt(self::failed($where, \sprintf('timed out after %s s', \round($timeout, 3)), null));
        });
        $status = \PGSQL_POLLING_WRITING; // what libpq wants first after PQconnectStart()
        try {
            while ($status !== \PGSQL_POLLING_OK) {
                if ($status === \PGSQL_POLLING_FAILED) {
                    throw self::failed($where, \pg_last_error($handle), $password);
                }
                $socket->wait($status !== \PGSQL_POLLING_READING);
                $status = \pg_connect_poll($handle);
            }
        } catch (Throwable $e) {
            \pg_close($handle); // not connected: nothing to drain, nothing blocks
            throw $e;
        } finally {
            $driver->cancel($timer);
        }
        $socket->settle();

        return [$handle, $socket];
    }

    private static function failed(string $where, string $message, ?string $password): ConnectionException
    {
        return new ConnectionException("Could not connect to PostgreSQL at {$where}: " . Failure::clean($message, $password));
    }
}
