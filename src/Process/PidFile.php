<?php

declare(strict_types=1);

namespace Petrel\Process;

/** The master's pid file: written on start, removed on exit, read by stop/reload/status. */
final class PidFile
{
    public function __construct(public readonly string $path)
    {
    }

    /** The default path for a listen address: <tmp>/petrel-127.0.0.1-8080.pid */
    public static function forAddress(string $listen): self
    {
        $key = \trim((string) \preg_replace('/[^A-Za-z0-9.]+/', '-', $listen), '-');

        return new self(\sys_get_temp_dir() . "/petrel-{$key}.pid");
    }

    /**
     * The pid of a live master, or null if the file is missing or stale: its pid is gone,
     * or is now another program's (isMaster()).
     */
    public function read(): ?int
    {
        $pid = @\file_get_contents($this->path);
        if ($pid === false || !\ctype_digit(\trim($pid))) {
            return null;
        }
        $pid = (int) \trim($pid);

        return self::isAlive($pid) && self::isMaster($pid) ? $pid : null;
    }

    /**
     * False when /proc shows that $pid is not a master: Master::run() titles its process
     * "{title}: master" before it writes its pid file. A master that could not remove its
     * file (SIGKILL, the OOM killer, a /tmp kept across a reboot) leaves a pid the system
     * may give another program: `petrel stop` sent that program SIGTERM, `reload` SIGUSR1
     * (which ends most), and `start` refused to run. Where /proc cannot tell (another OS,
     * hidepid), the live pid is trusted as before.
     */
    public static function isMaster(int $pid): bool
    {
        $command = @\file_get_contents("/proc/{$pid}/cmdline");

        return !\is_string($command) || \str_contains($command, ': master'); // a kernel thread's is empty
    }

    /** True for a running process; false for none or a zombie (exited, not yet reaped). */
    public static function isAlive(int $pid): bool
    {
        if ($pid <= 0 || !\posix_kill($pid, 0)) {
            return false;
        }
        $stat = @\file_get_contents("/proc/{$pid}/stat");

        return !\is_string($stat) || !\preg_match('/^\d+ \(.*\) Z/s', $stat);
    }

    /** @throws ProcessException if another live master owns the file */
    public function write(int $pid): void
    {
        $running = $this->read();
        if ($running !== null && $running !== $pid) {
            throw new ProcessException("Another Petrel master (pid {$running}) already uses {$this->path}");
        }
        if (@\file_put_contents($this->path, "{$pid}\n") === false) {
            throw new ProcessException("Cannot write the pid file {$this->path}");
        }
    }

    public function remove(int $pid): void
    {
        if ($this->read() === $pid || !self::isAlive((int) @\file_get_contents($this->path))) {
            @\unlink($this->path);
        }
    }
}
