<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Database\Mysql;

use Petrel\Tests\Support\ServerProcess;

/**
 * A private, throwaway MariaDB server for tests that need server settings the shared one
 * lacks (TLS): a fresh data directory (mariadb-install-db, under a second) in a temporary
 * directory, the server on a free loopback port and a Unix socket, removed by stop().
 * root@localhost logs in over the socket without a password.
 */
final class MariaDbServerProcess extends ServerProcess
{
    /** @param resource $process */
    private function __construct(mixed $process, string $dir, string $socket, public readonly int $port)
    {
        parent::__construct($process, $dir, $socket);
    }

    /** Why no private server can be started here, or null when it can. */
    public static function unavailable(): ?string
    {
        foreach (['mariadbd', 'mariadb-install-db'] as $binary) {
            if (self::find($binary) === null) {
                return "{$binary} is not installed (Debian: apt-get install mariadb-server)";
            }
        }

        return null;
    }

    /**
     * Starts a server and waits (up to 30 s) until it accepts connections.
     *
     * @param list<string> $arguments extra mariadbd options
     */
    public static function start(array $arguments = []): self
    {
        $dir = self::directory('mariadb');
        $asRoot = \function_exists('posix_getuid') && \posix_getuid() === 0 ? ['--user=root'] : [];
        $install = [(string) self::find('mariadb-install-db'), '--no-defaults', "--datadir={$dir}/data", ...$asRoot,
            '--auth-root-authentication-method=normal', '--skip-test-db'];
        \exec(\implode(' ', \array_map('escapeshellarg', $install)) . " >{$dir}/install.log 2>&1", $output, $status);
        if ($status !== 0) {
            $log = (string) @\file_get_contents("{$dir}/install.log");
            self::remove($dir);
            throw new \RuntimeException("mariadb-install-db failed:\n{$log}");
        }
        $probe = \stream_socket_server('tcp://127.0.0.1:0');
        \assert($probe !== false);
        $name = (string) \stream_socket_get_name($probe, false);
        \fclose($probe);
        $port = (int) \substr($name, (int) \strrpos($name, ':') + 1);
        $socket = "{$dir}/mysql.sock";
        $command = [(string) self::find('mariadbd'), '--no-defaults', "--datadir={$dir}/data", ...$asRoot,
            "--port={$port}", '--bind-address=127.0.0.1', "--socket={$socket}", "--pid-file={$dir}/mysql.pid",
            '--skip-name-resolve', '--innodb-buffer-pool-size=16M', "--log-error={$dir}/error.log", ...$arguments];
        // Through bash to close inherited descriptors (PHPUnit's output pipe…) before exec.
        $process = \proc_open(
            ['bash', '-c', 'for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done; exec "$@"', 'bash', ...$command],
            [['file', '/dev/null', 'r'], ['file', '/dev/null', 'w'], ['file', '/dev/null', 'w']],
            $pipes,
        );
        if ($process === false) {
            self::remove($dir);
            throw new \RuntimeException('Could not start mariadbd');
        }
        $server = new self($process, $dir, $socket, $port);
        self::awaitSocket($server, 30.0, "{$dir}/error.log", 'mariadbd');

        return $server;
    }
}
