<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Redis;

use Petrel\Tests\Support\ServerProcess;

/**
 * A private redis-server for tests that change server settings (requirepass, TLS): started
 * on a Unix socket in a fresh temporary directory (no port to collide on), stopped by stop().
 */
final class RedisServerProcess extends ServerProcess
{
    /** The redis-server binary ($REDIS_SERVER_BIN, else the PATH), or null when there is none. */
    public static function binary(): ?string
    {
        $configured = \getenv('REDIS_SERVER_BIN');
        if (\is_string($configured) && $configured !== '') {
            return \is_executable($configured) ? $configured : null;
        }

        return self::find('redis-server');
    }

    /**
     * Starts the server and waits (up to 5 s) until its socket accepts connections.
     *
     * @param list<string> $arguments extra redis-server options, e.g. ['--requirepass', 'secret']
     */
    public static function start(string $binary, array $arguments = []): self
    {
        $dir = self::directory('redis');
        $socket = "{$dir}/redis.sock";
        $log = "{$dir}/redis.log";
        $command = [$binary, '--port', '0', '--unixsocket', $socket, '--unixsocketperm', '700', '--save', '',
            '--appendonly', 'no', '--dir', $dir, '--daemonize', 'no', ...$arguments];
        $process = \proc_open($command, [['file', '/dev/null', 'r'], ['file', $log, 'a'], ['file', $log, 'a']], $pipes);
        if ($process === false) {
            self::remove($dir);
            throw new \RuntimeException("Could not start {$binary}");
        }
        $server = new self($process, $dir, $socket);
        self::awaitSocket($server, 5.0, $log, 'redis-server');

        return $server;
    }
}
