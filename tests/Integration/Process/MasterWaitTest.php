<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Process;

use Petrel\Process\Internal\MasterWait;
use Petrel\Process\Internal\WorkerTable;
use Petrel\Process\MasterConfig;
use Petrel\Process\WorkerContext;
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
            $wait = new MasterWait($table, [], static fn (): array => []);
            $deadline = \microtime(true) + 5.0;
            while ($table->all()[$pid]->talking && \microtime(true) < $deadline) {
                $wait->wait(0.25);
            }
            self::assertFalse($table->all()[$pid]->talking, 'the end of the pipe was seen');
            $turns = 0;
            $end = \microtime(true) + 1.0;
            while (\microtime(true) < $end) {
                $wait->wait(0.25);
                ++$turns;
            }
            self::assertLessThanOrEqual(6, $turns, 'waits of 0.25 s for a second, not a spin');
        } finally {
            \posix_kill($pid, \SIGKILL);
            \pcntl_waitpid($pid, $status);
        }
    }
}
