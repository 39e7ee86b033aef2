<?php

declare(strict_types=1);

namespace Petrel\Bench\Internal;

use Petrel\Bench\BenchException;

/**
 * A process the benchmark started: argv (no shell), stdin from /dev/null, stdout and
 * stderr into one log file, stopped with SIGTERM and then SIGKILL.
 */
final class ChildProcess
{
    /** @var resource|null */
    private $handle;
    private readonly int $pid;
    /** false while running; then the exit code, or null when a signal ended it */
    private int|null|false $exitCode = false;

    /**
     * @param list<string> $argv
     * @param array<string, string>|null $env null: inherit this process's environment
     */
    public function __construct(public readonly string $name, array $argv, public readonly string $log, ?array $env = null, ?string $cwd = null)
    {
        $handle = \proc_open($argv, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'a'], 2 => ['file', $log, 'a']], $pipes, $cwd, $env);
        if ($handle === false) {
            throw new BenchException("Cannot start {$name} ({$argv[0]})");
        }
        $this->handle = $handle;
        $this->pid = \proc_get_status($handle)['pid'];
    }

    public function pid(): int
    {
        return $this->pid;
    }

    /** @phpstan-impure */
    public function isRunning(): bool
    {
        if ($this->handle === null || $this->exitCode !== false) {
            return false;
        }
        // proc_get_status() reports the exit code once only (PHP < 8.3): keep it.
        $status = \proc_get_status($this->handle);
        if (!$status['running']) {
            $this->exitCode = $status['signaled'] ? null : $status['exitcode'];
        }

        return $status['running'];
    }

    /** Waits for it to exit; its exit code, null if a signal killed it. */
    public function wait(): ?int
    {
        while ($this->isRunning()) {
            \usleep(20_000);
        }
        if ($this->handle !== null) {
            \proc_close($this->handle);
            $this->handle = null;
        }

        return $this->exitCode === false ? null : $this->exitCode;
    }

    /** SIGTERM, then SIGKILL after $grace seconds; returns once it has exited. */
    public function stop(float $grace = 10.0): void
    {
        if ($this->handle === null) {
            return;
        }
        if ($this->isRunning()) {
            \posix_kill($this->pid, \SIGTERM);
            $deadline = \microtime(true) + $grace;
            while ($this->isRunning() && \microtime(true) < $deadline) {
                \usleep(20_000);
            }
            if ($this->isRunning()) {
                \posix_kill($this->pid, \SIGKILL);
            }
        }
        $this->wait();
    }

    /**
     * The last lines of its log, for error messages, a stack trace's frames ("#3 /path(12):
     * f()", "#4 {main}") left out: a PHP server logs a trace with each request that failed,
     * whose frames would fill the tail and push out the lines that say what failed and
     * where. The whole log is kept with the results (logs/).
     */
    public function logTail(int $lines = 8): string
    {
        $text = \trim((string) @\file_get_contents($this->log));
        $said = \preg_grep('/^#\d+ (?:\S.*\(\d+\): |\[internal function\]: |\{main\}$)/', \explode("\n", $text), \PREG_GREP_INVERT) ?: [];

        return \implode("\n", \array_slice($said, -$lines));
    }

    public function output(): string
    {
        return (string) @\file_get_contents($this->log);
    }
}
