<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Redis;

/**
 * A private redis-server for tests that change server settings (requirepass): started on
 * a Unix socket in a fresh temporary directory (no port to collide on), stopped by stop().
 */
final class RedisServerProcess
{
    /** @param resource $process */
    private function __construct(private readonly mixed $process, public readonly string $socket, private readonly string $dir)
    {
    }

    /** The redis-server binary ($REDIS_SERVER_BIN, else the PATH), or null when there is none. */
    public static function binary(): ?string
    {
        $configured = \getenv('REDIS_SERVER_BIN');
        if (\is_string($configured) && $configured !== '') {
            return \is_executable($configured) ? $configured : null;
        }
        foreach (\explode(\PATH_SEPARATOR, (string) \getenv('PATH')) as $dir) {
            if ($dir !== '' && \is_executable("{$dir}/redis-server")) {
                return "{$dir}/redis-server";
            }
        }

        return null;
    }

    /**
     * Starts the server and waits (up to 5 s) until its socket accepts connections.
     *
     * @param list<string> $arguments extra redis-server options, e.g. ['--requirepass', 'secret']
     */
    public static function start(string $binary, array $arguments = []): self
    {
        $dir = \sys_get_temp_dir() . '/petrel-redis-' . \bin2hex(\random_bytes(6));
        \mkdir($dir, 0700);
        $socket = "{$dir}/redis.sock";
        $log = "{$dir}/redis.log";
        $command = [$binary, '--port', '0', '--unixsocket', $socket, '--unixsocketperm', '700', '--save', '',
            '--appendonly', 'no', '--dir', $dir, '--daemonize', 'no', ...$arguments];
        $process = \proc_open($command, [['file', '/dev/null', 'r'], ['file', $log, 'a'], ['file', $log, 'a']], $pipes);
        if ($process === false) {
            throw new \RuntimeException("Could not start {$binary}");
        }
        $server = new self($process, $socket, $dir);
        $deadline = \hrtime(true) + 5_000_000_000;
        while (!self::accepts($socket)) {
            if (!\proc_get_status($process)['running'] || \hrtime(true) > $deadline) {
                $output = (string) @\file_get_contents($log);
                $server->stop();
                throw new \RuntimeException("redis-server did not start:\n{$output}");
            }
            \usleep(5_000);
        }

        return $server;
    }

    public function stop(): void
    {
        if (\is_resource($this->process)) {
            \proc_terminate($this->process, \SIGKILL);
            \proc_close($this->process);
        }
        foreach ((array) \glob("{$this->dir}/*") as $file) {
            @\unlink((string) $file);
        }
        @\rmdir($this->dir);
    }

    private static function accepts(string $socket): bool
    {
        if (!\file_exists($socket)) {
            return false;
        }
        $client = @\stream_socket_client("unix://{$socket}", $errno, $error, 1.0);
        if ($client === false) {
            return false;
        }
        \fclose($client);

        return true;
    }
}
