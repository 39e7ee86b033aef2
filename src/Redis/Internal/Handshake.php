<?php

declare(strict_types=1);

namespace Petrel\Redis\Internal;

use Petrel\Coroutine\Scheduler;
use Petrel\Redis\RedisConfig;
use Petrel\Redis\RedisConnectionException;
use Petrel\Redis\RedisErrorReply;
use Petrel\Redis\RedisException;
use Petrel\Socket\SocketException;
use Petrel\Socket\StreamSocket;

/**
 * Sets a freshly connected socket up, under one deadline: the TLS handshake (rediss://),
 * then, pipelined in one write, HELLO 3 (with AUTH) for RESP3 or else AUTH when there is a
 * password, and SELECT when the database is not 0.
 *
 * The TLS handshake is done here rather than by Socket\connect() so that the deadline
 * covers it: a rediss:// URL pointing at a plain-text port would otherwise wait forever.
 *
 * @internal
 */
final class Handshake
{
    private function __construct()
    {
    }

    /**
     * @param float $timeout seconds for all of it; then the stream is closed
     * @throws RedisConnectionException when TLS fails, the server refuses a step, does not
     *                                  answer in time, or the connection is lost (the
     *                                  stream is closed in every case)
     */
    public static function perform(StreamSocket $socket, RespStream $stream, RedisConfig $config, float $timeout): void
    {
        [$commands, $steps] = self::commands($config);
        if ($config->tls !== null) {
            \array_unshift($steps, 'TLS');
        }
        if ($steps === []) {
            return;
        }
        $driver = Scheduler::get()->driver;
        $expired = false;
        $timer = $driver->delay(\max(0.0, $timeout), static function () use ($stream, &$expired): void {
            $expired = true;
            $stream->close('the handshake timed out');
        });
        try {
            if ($config->tls !== null) {
                $socket->setupTls($config->tls, $config->unixSocket === null ? $config->host : 'localhost');
            }
            $replies = $commands === []
                ? []
                : $stream->requestMany(RespEncoder::encodeMany($commands), \count($commands));
        } catch (SocketException | RedisConnectionException $e) {
            $stream->close('the handshake failed');
            if ($expired) {
                throw new RedisConnectionException(\sprintf(
                    'Redis at %s did not complete the handshake (%s) within the connect timeout of %s s',
                    $stream->endpoint,
                    \implode(', ', $steps),
                    \round($config->connectTimeout, 3),
                ), 0, $e);
            }
            if ($e instanceof SocketException) {
                throw new RedisConnectionException(
                    "TLS handshake with Redis at {$stream->endpoint} failed: {$e->getMessage()}",
                    0,
                    $e,
                );
            }
            throw $e;
        } finally {
            $driver->cancel($timer);
        }
        $offset = \count($steps) - \count($commands);
        foreach ($replies as $i => $reply) {
            if ($reply instanceof RedisErrorReply) {
                $stream->close('the handshake failed');
                throw new RedisConnectionException(
                    "Redis at {$stream->endpoint} refused {$steps[$i + $offset]}: {$reply->text()}",
                    0,
                    RedisException::fromReply($reply),
                );
            }
        }
    }

    /** @return array{list<list<string|int>>, list<string>} the commands, and their names for messages */
    private static function commands(RedisConfig $config): array
    {
        $commands = [];
        $steps = [];
        if ($config->protocol === 3) {
            $hello = ['HELLO', '3'];
            if ($config->password !== null) {
                \array_push($hello, 'AUTH', $config->username ?? 'default', $config->password);
            }
            $commands[] = $hello;
            $steps[] = $config->password !== null ? 'HELLO 3 with AUTH' : 'HELLO 3';
        } elseif ($config->password !== null) {
            $commands[] = $config->username === null
                ? ['AUTH', $config->password]
                : ['AUTH', $config->username, $config->password];
            $steps[] = $config->username === null ? 'AUTH' : "AUTH as user '{$config->username}'";
        }
        if ($config->database !== 0) {
            $commands[] = ['SELECT', $config->database];
            $steps[] = "SELECT {$config->database}";
        }

        return [$commands, $steps];
    }
}
