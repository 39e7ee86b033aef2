<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Process;

use Petrel\Process\Internal\WorkerTable;
use Petrel\Process\MasterConfig;
use Petrel\Process\WorkerContext;
use PHPUnit\Framework\TestCase;

/** Forks real worker processes from this one, as the master does. */
final class WorkerTableTest extends TestCase
{
    /**
     * A SIGTERM sent the moment a worker is forked, before the child has run a line of its
     * own, must reach the worker, not the master's handler the child inherited. The parent
     * usually runs on after fork() while the child waits for a CPU, so the signal lands in
     * that window nearly every time; it was lost there, and a stop right after a recycle
     * left the new worker serving until the master killed it (--graceful-timeout, 30 s).
     */
    public function testASigtermSentRightAfterTheForkStopsTheWorker(): void
    {
        $masterGotIt = false;
        \pcntl_async_signals(true);
        \pcntl_signal(\SIGTERM, static function () use (&$masterGotIt): void {
            $masterGotIt = true; // in a child: a flag on its own copy, seen by no one
        });
        $table = new WorkerTable(new MasterConfig(workers: 1), static function (WorkerContext $context): int {
            // What a worker that missed its SIGTERM does: serve on. 3 s, then say so.
            \usleep(3_000_000);

            return 9;
        }, null, [], static fn (string $line) => null);
        try {
            for ($attempt = 0; $attempt < 5; $attempt++) {
                $pid = $table->spawn(1);
                \posix_kill($pid, \SIGTERM);
                $started = \microtime(true);
                \pcntl_waitpid($pid, $status);
                self::assertTrue(\pcntl_wifsignaled($status), 'the worker ends by the signal, it does not serve on (exit code ' . \pcntl_wexitstatus($status) . ')');
                self::assertSame(\SIGTERM, \pcntl_wtermsig($status));
                self::assertLessThan(2.0, \microtime(true) - $started);
                $table->reap();
            }
            self::assertFalse($masterGotIt, 'the signals were sent to the workers, not to this process');
        } finally {
            \pcntl_signal(\SIGTERM, \SIG_DFL);
        }
    }
}
