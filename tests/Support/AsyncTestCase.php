<?php

declare(strict_types=1);

namespace Petrel\Tests\Support;

use Closure;
use Petrel\Coroutine\Scheduler;
use Petrel\Loop\Driver;
use PHPUnit\Framework\TestCase;

use function Petrel\run;
use function Petrel\timeout;

/**
 * Runs test bodies inside a coroutine on a fresh scheduler, with a deadline (a test that
 * would hang fails with a TimeoutException instead), and fails a test that leaves loop
 * watchers referenced, coroutines unfinished, or uncaught coroutine exceptions behind.
 */
abstract class AsyncTestCase extends TestCase
{
    /** @var list<string> */
    protected array $uncaught = [];

    protected function setUp(): void
    {
        $this->uncaught = [];
        $this->useDriver(null);
    }

    /** A fresh scheduler on $driver (null: the default one), its uncaught errors collected. */
    protected function useDriver(?Driver $driver): void
    {
        Scheduler::reset($driver)->setErrorHandler(function (\Throwable $error, string $where): void {
            $this->uncaught[] = "{$where}: " . $error::class . ': ' . $error->getMessage();
        });
    }

    protected function async(Closure $test, float $timeout = 10.0): mixed
    {
        $scheduler = Scheduler::get();
        $result = run(static fn () => timeout($timeout, $test));
        \gc_collect_cycles();
        $leaks = \array_filter($scheduler->driver->watchers(), static fn (array $w): bool => $w['enabled'] && $w['referenced']);
        self::assertSame([], $leaks, "The test leaked referenced loop watchers:\n" . \print_r($leaks, true));
        self::assertSame([], $scheduler->coroutines(), "The test left coroutines unfinished:\n" . $scheduler->describe());
        self::assertSame([], $this->uncaught, 'Uncaught coroutine exceptions were reported');

        return $result;
    }
}
