<?php

declare(strict_types=1);

namespace Petrel\Tests\Support;

/**
 * A private, throwaway server for tests that need settings the shared one lacks (TLS, a
 * password): run from a fresh temporary directory, reached over a Unix socket in it, killed
 * and its directory removed by stop().
 */
abstract class ServerProcess
{
    /** @param resource $process */
    protected function __construct(private readonly mixed $process, public readonly string $dir, public readonly string $socket)
    {
    }

    public function stop(): void
    {
        if (\is_resource($this->process)) {
            \proc_terminate($this->process, \SIGKILL);
            \proc_close($this->process);
        }
        self::remove($this->dir);
    }

    /** A new directory for one server: sys_get_temp_dir()/petrel-$name-…, which stop() removes. */
    protected static function directory(string $name): string
    {
        $dir = \sys_get_temp_dir() . "/petrel-{$name}-" . \bin2hex(\random_bytes(6));
        \mkdir($dir, 0700);

        return $dir;
    }

    /** $binary's path on the PATH (or in /usr/sbin, /usr/bin, where Debian puts servers), null without one. */
    protected static function find(string $binary): ?string
    {
        foreach ([...\explode(\PATH_SEPARATOR, (string) \getenv('PATH')), '/usr/sbin', '/usr/bin'] as $dir) {
            if ($dir !== '' && \is_executable("{$dir}/{$binary}")) {
                return "{$dir}/{$binary}";
            }
        }

        return null;
    }

    /**
     * Waits until $server's socket accepts connections; when its process ends or $seconds
     * pass first, stops it and throws with $log's contents.
     */
    protected static function awaitSocket(self $server, float $seconds, string $log, string $name): void
    {
        $deadline = \hrtime(true) + (int) ($seconds * 1e9);
        while (!self::accepts($server->socket)) {
            if (!\proc_get_status($server->process)['running'] || \hrtime(true) > $deadline) {
                $output = (string) @\file_get_contents($log);
                $server->stop();
                throw new \RuntimeException("{$name} did not start:\n{$output}");
            }
            \usleep(5_000);
        }
    }

    protected static function remove(string $dir): void
    {
        if (\str_starts_with($dir, \sys_get_temp_dir() . '/petrel-') && \is_dir($dir)) {
            \exec('rm -rf ' . \escapeshellarg($dir));
        }
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
