<?php

declare(strict_types=1);

namespace Petrel\Bench;

use Petrel\Bench\Internal\ChildProcess;

/**
 * Where one benchmark run keeps its servers: a private temp directory (configs, logs,
 * databases), free loopback ports, and every process it started, all stopped by
 * close() — also when the run fails half-way.
 */
final class Workspace
{
    /** Answers in a row, not the page, after which a server that answers is not starting but wrong. */
    private const WRONG_ANSWERS = 3;
    /** Requests in a row left unanswered for all the time given, after which a server that accepts connections is hung, not starting. */
    private const UNANSWERED = 3;

    public readonly string $dir;
    /** @var list<ChildProcess> */
    private array $processes = [];

    public function __construct(?string $dir = null)
    {
        $dir ??= \sys_get_temp_dir() . '/petrel-bench-' . \getmypid() . '-' . \bin2hex(\random_bytes(3));
        if (!\is_dir($dir) && !@\mkdir($dir, 0755, true)) {
            throw new BenchException("Cannot create the work directory {$dir}");
        }
        // nginx and php-fpm workers may run as another user (www-data, nobody) and must
        // reach the sockets and scripts under it.
        @\chmod($dir, 0755);
        $this->dir = $dir;
    }

    /** A TCP port on 127.0.0.1 that nothing listens on now. */
    public function freePort(): int
    {
        $server = \stream_socket_server('tcp://127.0.0.1:0', $errno, $error);
        if ($server === false) {
            throw new BenchException("Cannot find a free port: {$error}");
        }
        $name = (string) \stream_socket_get_name($server, false);
        \fclose($server);

        return (int) \substr($name, \strrpos($name, ':') + 1);
    }

    /** An absolute path inside the work directory (its parent directory created). */
    public function path(string $name): string
    {
        $path = "{$this->dir}/{$name}";
        if (!\is_dir(\dirname($path))) {
            \mkdir(\dirname($path), 0755, true);
        }

        return $path;
    }

    /**
     * @param list<string> $argv
     * @param array<string, string>|null $env null: this process's environment
     * @param string|null $log where its output goes (default: logs/NAME.log in the workspace)
     */
    public function spawn(string $name, array $argv, ?array $env = null, ?string $cwd = null, ?string $log = null): ChildProcess
    {
        $log ??= $this->path('logs/' . \preg_replace('/[^\w.-]+/', '-', $name) . '.log');
        $process = new ChildProcess($name, $argv, $log, $env, $cwd);
        $this->processes[] = $process;

        return $process;
    }

    /** Stops every process still running, newest first. */
    public function close(): void
    {
        foreach (\array_reverse($this->processes) as $process) {
            $process->stop();
        }
        $this->processes = [];
    }

    /** Copies the servers' logs (logs/*.log, nginx and php-fpm error logs) to $dir. */
    public function keepLogs(string $dir): void
    {
        $logs = [...(\glob("{$this->dir}/logs/*.log") ?: []), ...(\glob("{$this->dir}/*/*.log") ?: [])];
        if ($logs === []) {
            return;
        }
        if (!\is_dir($dir)) {
            @\mkdir($dir, 0755, true);
        }
        foreach ($logs as $log) {
            $name = \str_starts_with($log, "{$this->dir}/logs/") ? \basename($log) : \basename(\dirname($log)) . '-' . \basename($log);
            @\copy($log, "{$dir}/{$name}");
        }
    }

    public function removeFiles(): void
    {
        if (\is_dir($this->dir)) {
            $items = new \RecursiveIteratorIterator(
                new \RecursiveDirectoryIterator($this->dir, \FilesystemIterator::SKIP_DOTS),
                \RecursiveIteratorIterator::CHILD_FIRST,
            );
            foreach ($items as $item) {
                /** @var \SplFileInfo $item */
                $item->isDir() && !$item->isLink() ? @\rmdir($item->getPathname()) : @\unlink($item->getPathname());
            }
            @\rmdir($this->dir);
        }
    }

    /** The full path of an executable on PATH (or in the sbin directories), or null. */
    public static function which(string $tool): ?string
    {
        $dirs = \array_merge(\explode(':', (string) \getenv('PATH')), ['/usr/local/sbin', '/usr/sbin', '/sbin']);
        foreach (\array_unique($dirs) as $dir) {
            if ($dir !== '' && \is_file("{$dir}/{$tool}") && \is_executable("{$dir}/{$tool}")) {
                return "{$dir}/{$tool}";
            }
        }

        return null;
    }

    /**
     * GET $url: [status, body]. Status 0 when nothing answered. A body with a
     * Content-Length is read to that length, not to the connection's end: a server that
     * keeps the connection open despite `Connection: close` (bench/apps/bare-hello.php
     * parses nothing) answers at once instead of after $timeout — twice over, as PHP's
     * http wrapper waits out the timeout once more before it gives up.
     *
     * @return array{int, string}
     */
    public static function get(string $url, float $timeout = 10.0): array
    {
        $context = \stream_context_create(['http' => ['timeout' => $timeout, 'ignore_errors' => true, 'header' => "Connection: close\r\n"]]);
        $stream = @\fopen($url, 'r', false, $context);
        if ($stream === false) {
            return [0, ''];
        }
        $headers = \stream_get_meta_data($stream)['wrapper_data'] ?? [];
        $status = 0;
        $length = null;
        // After redirects the headers of every answer are there: the last one's count.
        foreach (\is_array($headers) ? $headers : [] as $line) {
            if (!\is_string($line)) {
                continue;
            }
            if (\preg_match('#^HTTP/\S+ (\d{3})#', $line, $match)) {
                $status = (int) $match[1];
                $length = null;
            } elseif (\preg_match('/^Content-Length:\s*(\d+)\s*$/i', $line, $match)) {
                $length = (int) $match[1];
            }
        }
        $body = (string) ($length === null ? \stream_get_contents($stream) : ($length === 0 ? '' : \stream_get_contents($stream, $length)));
        \fclose($stream);

        return [$status, $body];
    }

    /**
     * Waits until $url answers $expect in a 200 response; fails early, with the end of
     * its log, if $process exits first, or if it answers but not with the page
     * WRONG_ANSWERS times in a row: a server answering 500 to every request (its handler
     * throws, its database is gone) is not starting, and used to be waited for $timeout.
     * Likewise a server that accepts connections but answers none within $answerWithin,
     * UNANSWERED times in a row: it is hung, not starting (nothing listening yet is
     * refused at once), and was waited for $timeout too.
     */
    public function waitUntilServing(string $url, string $expect, ChildProcess $process, float $timeout = 60.0, float $answerWithin = 5.0): void
    {
        $deadline = \microtime(true) + $timeout;
        $wrong = 0;
        $hung = 0;
        do {
            $asked = \microtime(true);
            [$status, $body] = self::get($url, $answerWithin);
            if ($status === 200 && \str_contains($body, $expect)) {
                return;
            }
            if (!$process->isRunning()) {
                throw new BenchException("{$process->name} exited while starting:\n" . $process->logTail());
            }
            // Nothing answering yet is starting; a wrong answer may be a moment's (a proxy
            // whose upstream is not up yet), a few in a row are the server's answer. No
            // answer in the whole time given (not a refused connection, which fails at
            // once) is a server that accepted the connection and sat on it.
            $wrong = $status === 0 ? 0 : $wrong + 1;
            $hung = $status === 0 && \microtime(true) - $asked >= 0.9 * $answerWithin ? $hung + 1 : 0;
            if ($wrong >= self::WRONG_ANSWERS) {
                throw new BenchException("{$process->name} at {$url} answers HTTP {$status} instead of \"{$expect}\" ({$wrong} times in a row): "
                    . \substr(\trim($body), 0, 200) . "; its log ends:\n" . $process->logTail());
            }
            if ($hung >= self::UNANSWERED) {
                throw new BenchException("{$process->name} at {$url} accepts connections but does not answer within {$answerWithin}s ({$hung} times in a row); its log ends:\n"
                    . $process->logTail());
            }
            \usleep(100_000);
        } while (\microtime(true) < $deadline);
        $answer = $status === 0 ? 'no answer' : "HTTP {$status}: " . \substr(\trim($body), 0, 200);

        throw new BenchException("{$process->name} at {$url} did not serve \"{$expect}\" within {$timeout}s ({$answer})\n" . $process->logTail());
    }
}
