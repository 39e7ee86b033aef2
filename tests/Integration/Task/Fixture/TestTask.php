<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Task\Fixture;

/** A task for the task tests: what it does depends on $action. */
final class TestTask
{
    private int $calls = 0;

    public function __invoke(string $action, int $arg = 0): mixed
    {
        $this->calls++;

        return match ($action) {
            'echo' => ['arg' => $arg, 'pid' => \getmypid(), 'calls' => $this->calls],
            'sleep' => \usleep($arg * 1000) ?? 'slept',
            'spin' => self::spinForever(),
            'hang' => self::readForever(),
            'throw' => throw new \DomainException('bad input on purpose', 42),
            'throw-anonymous' => throw new class ('from an anonymous class', 7) extends \RuntimeException {
            },
            'kill' => \posix_kill((int) \getmypid(), \SIGKILL),
            'fatal' => self::exhaustMemory(),
            'exit' => exit(5),
            'closure' => static fn () => 1,
            'every' => self::tickEvery($arg),
            'nested' => \Petrel\task(self::class, ['echo', $arg]),
            default => throw new \InvalidArgumentException("unknown action {$action}"),
        };
    }

    /**
     * Starts a repeating timer in the task worker, every $ms; each tick appends "start PID",
     * sleeps 1 s (coroutine), then appends "end PID" to the file PETREL_TEST_TICKS names.
     */
    private static function tickEvery(int $ms): string
    {
        $file = (string) \getenv('PETREL_TEST_TICKS');
        \Petrel\every($ms / 1000, static function () use ($file): void {
            \file_put_contents($file, 'start ' . \getmypid() . "\n", \FILE_APPEND);
            \Petrel\sleep(1.0);
            \file_put_contents($file, 'end ' . \getmypid() . "\n", \FILE_APPEND);
        });

        return 'ticking';
    }

    /** A PHP loop that never ends: only a signal gets control inside it. */
    private static function spinForever(): never
    {
        while (true) {
        }
    }

    /**
     * Blocks in a read nobody answers, with a day's timeout: PHP retries the poll() a signal
     * interrupts (as mysqlnd, libpq and curl do), so no PHP signal handler runs meanwhile.
     */
    private static function readForever(): string
    {
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP) ?: throw new \RuntimeException('no socket pair');
        \stream_set_timeout($pair[0], 86400);

        return (string) \fread($pair[0], 1);
    }

    private static function exhaustMemory(): never
    {
        // 32 MiB above what the (forked, possibly large) test process already uses: a
        // fixed 32M below its current usage is refused, and then nothing stops the loop.
        if (\ini_set('memory_limit', (string) (\memory_get_usage(true) + (32 << 20))) === false) {
            throw new \RuntimeException('could not lower memory_limit');
        }
        $chunks = [];
        while (true) {
            $chunks[] = \str_repeat('x', 1 << 20);
        }
    }
}
