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
            'throw' => throw new \DomainException('bad input on purpose', 42),
            'throw-anonymous' => throw new class ('from an anonymous class', 7) extends \RuntimeException {
            },
            'kill' => \posix_kill((int) \getmypid(), \SIGKILL),
            'fatal' => self::exhaustMemory(),
            'exit' => exit(5),
            'closure' => static fn () => 1,
            default => throw new \InvalidArgumentException("unknown action {$action}"),
        };
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
