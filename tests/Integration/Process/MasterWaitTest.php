<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Process;

use Petrel\Process\Internal\MasterWait;
use Petrel\Process\Internal\WorkerTable;
use Petrel\Process\MasterConfig;
use Petrel\Process\Internal\WorkerHandle;
use Petrel\Process\WorkerContext;
use Petrel\Tests\Support\OpenFiles;
use PHPUnit\Framework\TestCase;

/** The master's wait between turns, with a real forked worker. */
final class MasterWaitTest extends TestCase
{
    /**
     * A worker's pipe reaches end of file before the worker exits (PHP's shutdown closes it
     * tens of milliseconds before the exit, longer on a loaded machine). A pipe at EOF is
     * always readable: the master used to spin on it, select and read nothing and waitpid,
     * ~1,000 times a second, until the worker was reaped.
     */
    public function testAPipeAtEndOfFileIsNotSpunOn(): void
    {
        $table = new WorkerTable(new MasterConfig(workers: 1), static function (WorkerContext $context): int {
            \fclose((new \ReflectionProperty(WorkerContext::class, 'pipe'))->getValue($context));
            \usleep(3_000_000);

            return 0;
        }, null, [], static fn (string $line) => null);
        $pid = $table->spawn(1);
        try {
            $wait = new MasterWait($table, [], static fn (): array => [], static fn (string $line) => null);
            $deadline = \microtime(true) + 5.0;
            while ($table->all()[$pid]->talking && \microtime(true) < $deadline) {
                $wait->wait(0.25);
            }
            self::assertFalse($table->all()[$pid]->talking, 'the end of the pipe was seen');
            self::assertWaitsNotSpins($wait);
        } finally {
            \posix_kill($pid, \SIGKILL);
            \pcntl_waitpid($pid, $status);
        }
    }

    /**
     * A master holding descriptors numbered past FD_SETSIZE (1,024: --workers and
     * --task-workers near their caps, each worker a pipe): stream_select() fails at once,
     * every time. The wait took each failure for a signal and returned at once: the master
     * spun at a full core and never read its workers' pipes (a worker's "ready" went
     * unheard: the start timed out). It polls the pipes now, and a signal still ends the
     * wait at once.
     */
    public function testPastFdSetSizeThePipesArePolledNotSpunOn(): void
    {
        if (($reason = OpenFiles::atLeast(1200)) !== null) {
            self::markTestSkipped($reason);
        }
        $flag = \tempnam(\sys_get_temp_dir(), 'petrel-master-wait-');
        \unlink($flag);
        $fillers = OpenFiles::fillPastSelectLimit();
        $log = [];
        $table = new WorkerTable(new MasterConfig(workers: 1), static function (WorkerContext $context) use ($flag): int {
            \usleep(300_000);
            $context->ready();
            while (!\is_file($flag)) {
                \usleep(10_000);
            }
            \posix_kill(\posix_getppid(), \SIGUSR1);
            \usleep(5_000_000);

            return 0;
        }, null, [], static fn (string $line) => null);
        $pid = $table->spawn(1);
        $async = \pcntl_async_signals(true);
        $previous = \pcntl_signal_get_handler(\SIGUSR1);
        \pcntl_signal(\SIGUSR1, static fn () => null);
        try {
            $wait = new MasterWait($table, [], static fn (): array => [], static function (string $line) use (&$log): void {
                $log[] = $line;
            });
            $turns = 0;
            $deadline = \microtime(true) + 5.0;
            while ($table->all()[$pid]->state !== WorkerHandle::READY && \microtime(true) < $deadline) {
                $wait->wait(0.25);
                ++$turns;
            }
            self::assertSame(WorkerHandle::READY, $table->all()[$pid]->state, "the worker's ready was read, in {$turns} waits");
            self::assertStringContainsString('FD_SETSIZE', \implode("\n", $log), 'the master says why it polls');
            self::assertWaitsNotSpins($wait);
            \touch($flag);
            $start = \microtime(true);
            $wait->wait(5.0);
            self::assertLessThan(2.0, \microtime(true) - $start, 'the signal ended the wait');
        } finally {
            \pcntl_signal(\SIGUSR1, $previous ?? \SIG_DFL);
            \pcntl_async_signals($async);
            \posix_kill($pid, \SIGKILL);
            \pcntl_waitpid($pid, $status);
            \array_map(\fclose(...), $fillers);
            @\unlink($flag);
        }
    }

    /** Waits of 0.25 s for a second: about four, not a spin. */
    private static function assertWaitsNotSpins(MasterWait $wait): void
    {
        $turns = 0;
        $end = \microtime(true) + 1.0;
        while (\microtime(true) < $end) {
            $wait->wait(0.25);
            ++$turns;
        }
        self::assertLessThanOrEqual(6, $turns, 'waits of 0.25 s for a second, not a spin');
    }
}
