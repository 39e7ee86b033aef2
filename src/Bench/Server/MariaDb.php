<?php

declare(strict_types=1);

namespace Petrel\Bench\Server;

use Petrel\Bench\BenchException;
use Petrel\Bench\SkipException;
use Petrel\Bench\Workspace;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\Mysql\MysqlConnection;

/**
 * A private MariaDB for one benchmark run: a fresh data directory in the workspace, a
 * loopback port, max_connections high enough for 50 workers' pools, stopped with the
 * workspace. Used when neither DATABASE_URL nor MYSQL_URL names one.
 *
 * With its thread pool: one thread per connection (the default) puts ~130 runnable threads
 * on 2 cores at c=100 in coroutine mode, and the kernel leaves some of them waiting 100+ ms
 * for a CPU (perf sched), which is the p99 of the queries scenario, not Petrel's.
 */
final class MariaDb
{
    /** @return string the mysql:// URL of database petrel_bench */
    public static function start(Workspace $workspace): string
    {
        $server = Workspace::which('mariadbd') ?? Workspace::which('mysqld');
        $install = Workspace::which('mariadb-install-db') ?? Workspace::which('mysql_install_db');
        if ($server === null || $install === null) {
            throw new SkipException('no MariaDB: install mariadb-server (Debian: apt-get install mariadb-server) or set MYSQL_URL=mysql://user:pass@host:port/db');
        }
        $data = $workspace->path('mariadb/data');
        $socket = $workspace->path('mariadb/mysqld.sock');
        $user = \posix_getuid() === 0 ? ['--user=root'] : [];
        $init = $workspace->spawn('mariadb-install-db', [$install, '--no-defaults', "--datadir={$data}", ...$user,
            '--auth-root-authentication-method=normal', '--skip-test-db']);
        if ($init->wait() !== 0) {
            throw new BenchException("mariadb-install-db failed:\n" . $init->logTail());
        }
        $port = $workspace->freePort();
        $process = $workspace->spawn('mariadb', [$server, '--no-defaults', "--datadir={$data}", ...$user,
            "--port={$port}", '--bind-address=127.0.0.1', "--socket={$socket}", '--skip-name-resolve',
            '--max-connections=4000', '--thread-handling=pool-of-threads', '--innodb-buffer-pool-size=128M', '--log-error=' . $workspace->path('mariadb/error.log')]);
        $url = "mysql://root@127.0.0.1:{$port}/mysql";
        $deadline = \microtime(true) + 60;
        while (!self::answers($port)) {
            if (!$process->isRunning() || \microtime(true) > $deadline) {
                $process->stop();
                throw new BenchException('MariaDB did not start: ' . \trim((string) @\file_get_contents($workspace->path('mariadb/error.log'))));
            }
            \usleep(100_000);
        }

        return self::createDatabase($url, $port);
    }

    private static function answers(int $port): bool
    {
        $socket = @\stream_socket_client("tcp://127.0.0.1:{$port}", $errno, $error, 0.5);
        if ($socket === false) {
            return false;
        }
        \stream_set_timeout($socket, 1);
        $greeting = \fread($socket, 4);
        \fclose($socket);

        return $greeting !== false && \strlen($greeting) === 4;
    }

    private static function createDatabase(string $url, int $port): string
    {
        \Petrel\run(static function () use ($url): void {
            $connection = MysqlConnection::connect(DatabaseConfig::fromUrl($url));
            try {
                $connection->execute('CREATE DATABASE IF NOT EXISTS petrel_bench');
            } finally {
                $connection->close();
            }
        });

        return "mysql://root@127.0.0.1:{$port}/petrel_bench";
    }
}
