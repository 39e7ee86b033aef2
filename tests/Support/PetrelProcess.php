<?php

declare(strict_types=1);

namespace Petrel\Tests\Support;

use RuntimeException;

/**
 * A `bin/petrel start` process on a free loopback port, for system tests. start() returns
 * once the server accepts connections (it waits for readiness, never a fixed sleep).
 */
final class PetrelProcess
{
    /** @var resource|null */
    private $process = null;
    public readonly string $address;
    public readonly string $pidFile;
    public readonly string $logFile;
    private ?int $exitCode = null;
    /** A SIGTERM, SIGINT or SIGHUP went out already: stop() waits for that stop, it sends no second one. */
    private bool $stopSent = false;

    /** @param list<string> $options extra start options, e.g. ['--workers=1', '--mode=sync'] */
    public function __construct(private readonly string $app, private readonly array $options = [])
    {
        $this->address = '127.0.0.1:' . self::freePort();
        $dir = \sys_get_temp_dir();
        $tag = 'petrel-test-' . \getmypid() . '-' . \bin2hex(\random_bytes(4));
        $this->pidFile = "{$dir}/{$tag}.pid";
        $this->logFile = "{$dir}/{$tag}.log";
    }

    public static function freePort(): int
    {
        $socket = \stream_socket_server('tcp://127.0.0.1:0');
        if ($socket === false) {
            throw new RuntimeException('no free port');
        }
        $port = (int) \substr((string) \strrchr((string) \stream_socket_get_name($socket, false), ':'), 1);
        \fclose($socket);

        return $port;
    }

    public static function bin(): string
    {
        return \dirname(__DIR__, 2) . '/bin/petrel';
    }

    /** @param list<string> $arguments */
    public static function runCli(array $arguments, ?int &$exitCode = null): string
    {
        $process = \proc_open([\PHP_BINARY, self::bin(), ...$arguments], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        if (!\is_resource($process)) {
            throw new RuntimeException('cannot run bin/petrel');
        }
        $output = \stream_get_contents($pipes[1]) . \stream_get_contents($pipes[2]);
        $exitCode = \proc_close($process);

        return (string) $output;
    }

    public function start(float $timeout = 15.0): self
    {
        $command = [\PHP_BINARY, self::bin(), 'start', $this->app, "--listen={$this->address}", "--pid-file={$this->pidFile}", ...$this->options];
        $log = \fopen($this->logFile, 'wb');
        $this->process = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => $log, 2 => $log], $pipes);
        if (!\is_resource($this->process)) {
            throw new RuntimeException('cannot start bin/petrel');
        }
        $deadline = \microtime(true) + $timeout;
        while (\microtime(true) < $deadline) {
            if (\str_contains($this->log(), 'Petrel listening on')) {
                return $this;
            }
            if (!$this->isRunning()) {
                throw new RuntimeException("bin/petrel exited with code {$this->exitCode} before listening:\n" . $this->log());
            }
            \usleep(20000);
        }
        throw new RuntimeException("bin/petrel did not listen within {$timeout} s:\n" . $this->log());
    }

    public function masterPid(): int
    {
        return (int) \trim((string) @\file_get_contents($this->pidFile));
    }

    /** @return array<string, mixed> the status the master writes every second */
    public function status(): array
    {
        $status = \json_decode((string) @\file_get_contents($this->statusFile()), true);

        return \is_array($status) ? $status : [];
    }

    /** @return list<int> pids of the workers in state ready */
    public function workerPids(): array
    {
        $pids = [];
        foreach ($this->status()['workers'] ?? [] as $worker) {
            if (\is_array($worker) && ($worker['state'] ?? '') === 'ready') {
                $pids[] = (int) $worker['pid'];
            }
        }
        \sort($pids);

        return $pids;
    }

    /** Polls $condition every 50 ms until it returns true; fails after $timeout. */
    public static function waitFor(\Closure $condition, float $timeout, string $what): void
    {
        $deadline = \microtime(true) + $timeout;
        while (!$condition()) {
            if (\microtime(true) > $deadline) {
                throw new RuntimeException("timed out after {$timeout} s waiting for {$what}");
            }
            \usleep(50000);
        }
    }

    /** Sends $signal to the master named by the pid file (nothing once the file is gone). */
    public function signal(int $signal): void
    {
        $pid = $this->masterPid();
        if ($pid > 0) { // posix_kill(0, …) would signal this test's whole process group
            \posix_kill($pid, $signal);
            $this->stopSent = $this->stopSent || $signal === \SIGTERM || $signal === \SIGINT || $signal === \SIGHUP;
        }
    }

    public function isRunning(): bool
    {
        if ($this->process === null) {
            return false;
        }
        $status = \proc_get_status($this->process);
        if (!$status['running']) {
            $this->exitCode ??= $status['exitcode'];
        }

        return $status['running'];
    }

    /**
     * Sends SIGTERM (unless signal() sent one) and waits for the exit; returns the exit code.
     * One stop, one signal: a second SIGTERM that lands in PHP's own shutdown, after the
     * master said "stopped" (PHP puts the handlers back to SIG_DFL there), ends the process
     * "killed by SIGTERM", an exit code of -1 here.
     */
    public function stop(float $timeout = 30.0): int
    {
        if ($this->process === null) {
            return $this->exitCode ?? -1;
        }
        if (!$this->stopSent && $this->isRunning()) {
            \proc_terminate($this->process, \SIGTERM);
            $this->stopSent = true;
        }
        try {
            self::waitFor(fn (): bool => !$this->isRunning(), $timeout, 'bin/petrel to exit');
        } catch (RuntimeException $stuck) {
            // What it was doing: the log and its processes' states, for a failure seen once.
            $processes = (string) \shell_exec('ps -o pid,stat,etime,wchan:24,cmd --ppid ' . $this->masterPid() . ' 2>&1');
            throw new RuntimeException("{$stuck->getMessage()}\n--- log ---\n{$this->log()}--- workers ---\n{$processes}", 0, $stuck);
        }
        \proc_close($this->process);
        $this->process = null;

        return $this->exitCode ?? -1;
    }

    public function log(): string
    {
        return (string) @\file_get_contents($this->logFile);
    }

    public function __destruct()
    {
        if ($this->process !== null && $this->isRunning()) {
            \proc_terminate($this->process, \SIGKILL);
            \proc_close($this->process);
        }
        // A master that stops cleanly removes its pid and status files; one a test killed
        // (SIGKILL, to see its workers notice) cannot, and /tmp would keep them.
        @\unlink($this->logFile);
        @\unlink($this->pidFile);
        @\unlink($this->statusFile());
    }

    /** Where the master writes its status: beside its pid file. */
    private function statusFile(): string
    {
        return (string) \preg_replace('/\.pid$/', '', $this->pidFile) . '.status.json';
    }
}
