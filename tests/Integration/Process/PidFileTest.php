<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Process;

use Petrel\Process\PidFile;
use PHPUnit\Framework\TestCase;

/** The pid file against real processes: a master's, and one that took a stale file's pid. */
final class PidFileTest extends TestCase
{
    private string $path;
    /** @var list<resource> */
    private array $processes = [];

    protected function setUp(): void
    {
        $this->path = \sys_get_temp_dir() . '/petrel-pidfile-test-' . \getmypid() . '.pid';
    }

    protected function tearDown(): void
    {
        foreach ($this->processes as $process) {
            \proc_terminate($process, \SIGKILL);
            \proc_close($process);
        }
        @\unlink($this->path);
    }

    public function testAMastersPidIsRead(): void
    {
        $pid = $this->spawn('cli_set_process_title("petrel: master");');
        \file_put_contents($this->path, "{$pid}\n");
        self::assertSame($pid, (new PidFile($this->path))->read());
    }

    /**
     * A stale file whose pid the system gave another program since: `petrel stop` sent that
     * program SIGTERM, and `petrel start` refused to run ("already running").
     */
    public function testAPidNowOfAnotherProgramIsStale(): void
    {
        $pid = $this->spawn('');
        \file_put_contents($this->path, "{$pid}\n");
        self::assertNull((new PidFile($this->path))->read());
        (new PidFile($this->path))->write((int) \getmypid()); // "Another Petrel master (pid …)" before
        self::assertSame((string) \getmypid() . "\n", \file_get_contents($this->path));
    }

    /** A PHP process that runs $code, then sleeps; returns once its title is what $code made it. */
    private function spawn(string $code): int
    {
        $process = \proc_open([\PHP_BINARY, '-r', $code . ' echo "up\n"; sleep(30);'], [1 => ['pipe', 'w']], $pipes);
        self::assertIsResource($process);
        $this->processes[] = $process;
        self::assertSame("up\n", \fgets($pipes[1]));

        return \proc_get_status($process)['pid'];
    }
}
