<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Loop;

use Petrel\Loop\Driver;
use Petrel\Loop\LoopError;
use Petrel\Loop\TickCounter;
use Petrel\Tests\Support\OpenFiles;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** The conformance suite every Driver must pass; each driver's test is a small subclass. */
abstract class DriverTestCase extends TestCase
{
    abstract protected function createDriver(): Driver;

    /** Why this driver cannot watch descriptors above FD_SETSIZE, or null if it can. */
    protected function manyStreamsUnsupported(): ?string
    {
        return null;
    }

    private Driver $loop;

    protected function setUp(): void
    {
        $this->loop = $this->createDriver();
    }

    public function testRunReturnsAtOnceWithNothingToDo(): void
    {
        $this->loop->run();
        self::assertFalse($this->loop->isRunning());
        self::assertFalse($this->loop->isReferenced());
    }

    public function testTickOrderDeferThenIoThenTimers(): void
    {
        [$a, $b] = $this->pair();
        \fwrite($b, 'x');
        $log = [];
        $this->loop->delay(0, function () use (&$log): void {
            $log[] = 'timer';
        });
        $this->loop->onReadable($a, function (int $id) use (&$log): void {
            $log[] = 'readable';
            $this->loop->cancel($id);
        });
        $this->loop->defer(function () use (&$log): void {
            $log[] = 'defer1';
            $this->loop->defer(function () use (&$log): void {
                $log[] = 'defer-next-tick';
            });
        });
        $this->loop->defer(function () use (&$log): void {
            $log[] = 'defer2';
        });
        $this->loop->run();
        self::assertSame(['defer1', 'defer2', 'readable', 'timer', 'defer-next-tick'], $log);
    }

    public function testTimersRunInDueOrderThenCreationOrder(): void
    {
        $log = [];
        foreach ([0.03, 0.01, 0.02, 0.01] as $i => $delay) {
            $this->loop->delay($delay, function () use (&$log, $i): void {
                $log[] = $i;
            });
        }
        $this->loop->run();
        self::assertSame([1, 3, 2, 0], $log);
    }

    public function testRepeatRunsUntilCancelled(): void
    {
        $count = 0;
        $this->loop->repeat(0.001, function (int $id) use (&$count): void {
            if (++$count === 5) {
                $this->loop->cancel($id);
            }
        });
        $this->loop->run();
        self::assertSame(5, $count);
    }

    public function testTimerCancelledWhileAnotherFiresDoesNotRun(): void
    {
        $ran = [];
        $second = 0;
        $this->loop->delay(0.005, function () use (&$ran, &$second): void {
            $ran[] = 'first';
            $this->loop->cancel($second);
        });
        $second = $this->loop->delay(0.005, function () use (&$ran): void {
            $ran[] = 'second';
        });
        \usleep(10000); // both are due in the same tick
        $this->loop->run();
        self::assertSame(['first'], $ran);
    }

    public function testTimerCancellingItselfWhileFiringIsHarmless(): void
    {
        $runs = 0;
        $this->loop->repeat(0.001, function (int $id) use (&$runs): void {
            $runs++;
            $this->loop->cancel($id);
            $this->loop->cancel($id);
            $this->loop->disable($id);
        });
        $this->loop->run();
        self::assertSame(1, $runs);
    }

    public function testDisableAndEnable(): void
    {
        $ran = false;
        $id = $this->loop->delay(0, function () use (&$ran): void {
            $ran = true;
        });
        $this->loop->disable($id);
        $this->loop->run();
        self::assertFalse($ran);
        $this->loop->enable($id);
        $this->loop->run();
        self::assertTrue($ran);
    }

    public function testUnreferencedWatcherDoesNotKeepLoopAlive(): void
    {
        $ran = false;
        $id = $this->loop->delay(0.05, function () use (&$ran): void {
            $ran = true;
        });
        $this->loop->unreference($id);
        $start = \hrtime(true);
        $this->loop->run();
        self::assertFalse($ran);
        self::assertLessThan(0.04, (\hrtime(true) - $start) / 1e9);
        $this->loop->reference($id);
        $this->loop->run();
        self::assertTrue($ran);
    }

    public function testReadableAndWritable(): void
    {
        [$a, $b] = $this->pair();
        $got = '';
        $this->loop->onWritable($b, function (int $id, $stream): void {
            \fwrite($stream, 'hello');
            $this->loop->cancel($id);
        });
        $this->loop->onReadable($a, function (int $id, $stream) use (&$got): void {
            $got .= \fread($stream, 100);
            if (\strlen($got) >= 5) {
                $this->loop->cancel($id);
            }
        });
        $this->loop->run();
        self::assertSame('hello', $got);
    }

    public function testTwoWatchersOnOneStreamBothRun(): void
    {
        [$a, $b] = $this->pair();
        \fwrite($b, 'x');
        $runs = [];
        foreach (['one', 'two'] as $name) {
            $this->loop->onReadable($a, function (int $id) use (&$runs, $name): void {
                $runs[] = $name;
                $this->loop->cancel($id);
            });
        }
        $this->loop->run();
        self::assertSame(['one', 'two'], $runs);
    }

    /** Driver's $more: true while other stream callbacks of the tick follow, false for the last. */
    public function testStreamCallbacksAreToldWhetherMoreFollowInTheTick(): void
    {
        $streams = [];
        for ($i = 0; $i < 3; $i++) {
            [$a, $b] = $this->pair();
            \fwrite($b, 'x');
            $streams[] = [$a, $b];
        }
        $more = [];
        foreach ($streams as [$a]) {
            $this->loop->onReadable($a, function (int $id, $stream, bool $hint) use (&$more): void {
                $more[] = $hint;
                $this->loop->cancel($id);
            });
        }
        $this->loop->run();
        self::assertSame([true, true, false], $more, 'three streams ready in one tick');

        $more = [];
        [$a, $b] = $this->pair();
        \fwrite($b, 'x');
        $this->loop->onReadable($a, function (int $id, $stream, bool $hint) use (&$more): void {
            $more[] = "readable {$hint}";
            $this->loop->cancel($id);
        });
        $this->loop->onWritable($b, function (int $id, $stream, bool $hint) use (&$more): void {
            $more[] = "writable {$hint}";
            $this->loop->cancel($id);
        });
        $this->loop->run();
        self::assertSame(['readable 1', 'writable '], $more, 'a readable stream, then a writable one, in one tick');

        $more = [];
        [$a, $b] = $this->pair();
        \fwrite($b, 'x');
        $this->loop->onReadable($a, function (int $id, $stream, bool $hint) use (&$more): void {
            $more[] = $hint;
            $this->loop->cancel($id);
        });
        $this->loop->run();
        self::assertSame([false], $more, 'a lone ready stream');
    }

    public function testStopReturnsFromRun(): void
    {
        $ticks = 0;
        $this->loop->repeat(0.001, function () use (&$ticks): void {
            if (++$ticks === 3) {
                $this->loop->stop();
            }
        });
        $this->loop->run();
        self::assertSame(3, $ticks);
        self::assertTrue($this->loop->isReferenced());
    }

    public function testExceptionFromCallbackPropagatesAndLoopStaysUsable(): void
    {
        $this->loop->defer(static function (): void {
            throw new \RuntimeException('boom');
        });
        $ran = false;
        $this->loop->defer(function () use (&$ran): void {
            $ran = true;
        });
        try {
            $this->loop->run();
            self::fail('expected the exception');
        } catch (\RuntimeException $e) {
            self::assertSame('boom', $e->getMessage());
        }
        self::assertFalse($this->loop->isRunning());
        $this->loop->run();
        self::assertTrue($ran, 'the deferred callback queued after the failing one still runs');
    }

    public function testNestedRunIsAnError(): void
    {
        $this->loop->defer(function (): void {
            $this->loop->run();
        });
        $this->expectException(LoopError::class);
        $this->loop->run();
    }

    public function testClosedStreamStillWatchedGivesAClearError(): void
    {
        [$a] = $this->pair();
        $this->loop->onReadable($a, static function (): void {
        });
        \fclose($a);
        $this->expectException(LoopError::class);
        $this->expectExceptionMessage('cancel the watcher before closing');
        $this->loop->run();
    }

    public function testInvalidArguments(): void
    {
        $this->expectException(LoopError::class);
        $this->loop->repeat(0, static function (): void {
        });
    }

    /** @return iterable<string, array{string, float}> */
    public static function invalidTimerTimes(): iterable
    {
        yield 'delay -1' => ['delay', -1.0];
        yield 'delay NaN' => ['delay', \NAN];
        yield 'repeat 0' => ['repeat', 0.0];
        yield 'repeat NaN' => ['repeat', \NAN];
    }

    /**
     * NaN passed a `< 0` check: its due time broke the timer heap's order, and the loop then
     * spun at 100 % CPU and ran no timer again.
     */
    #[DataProvider('invalidTimerTimes')]
    public function testTimersRefuseNegativeAndNanTimes(string $method, float $seconds): void
    {
        try {
            $this->loop->{$method}($seconds, static function (): void {
            });
            self::fail("{$method}({$seconds}) was taken");
        } catch (LoopError $error) {
            self::assertMatchesRegularExpression('/^Timer (delay|interval) must be >=? 0, got /', $error->getMessage());
        }
        self::assertSame([], $this->loop->watchers());
    }

    public function testATimerOfInfiniteDelayNeverRunsAndLeavesTheOthersInOrder(): void
    {
        $log = [];
        $never = $this->loop->delay(\INF, static function () use (&$log): void {
            $log[] = 'INF delay';
        });
        $neverRepeated = $this->loop->repeat(\INF, static function () use (&$log): void {
            $log[] = 'INF repeat';
        });
        foreach ([0.02, 0.01] as $delay) {
            $this->loop->delay($delay, static function () use (&$log, $delay): void {
                $log[] = $delay;
            });
        }
        $this->loop->delay(0.03, function () use ($never, $neverRepeated): void {
            $this->loop->cancel($never);
            $this->loop->cancel($neverRepeated);
        });
        $this->loop->run();
        self::assertSame([0.01, 0.02], $log);
    }

    /** @return iterable<string, array{float, bool}> */
    public static function distantTimers(): iterable
    {
        foreach (['1e13 s' => 1e13, 'PHP_INT_MAX s' => (float) \PHP_INT_MAX, '9.3e18 s' => 9.3e18, '1e300 s' => 1e300] as $name => $seconds) {
            yield "{$name}, no stream" => [$seconds, false];
            yield "{$name}, a stream watched" => [$seconds, true];
        }
    }

    /**
     * A timer due in an age ("never") must not fail or spin the wait it bounds: with the
     * select driver the wait overflowed the integer usleep() or stream_select() takes (a
     * ValueError, or 0 and a busy loop). A signal from a child ends the wait here; a
     * handler of our own rather than a signal watcher, so that no self-pipe is watched.
     */
    #[DataProvider('distantTimers')]
    public function testATimerDueInAnAgeWaitsQuietly(float $seconds, bool $withStream): void
    {
        if (!\class_exists(\FFI::class) || !\function_exists('pcntl_fork')) {
            self::markTestSkipped('needs ext-ffi (TickCounter counts the waits) and ext-pcntl');
        }
        $this->loop->delay($seconds, static function (): void {
        });
        $pair = $this->pair(); // both ends kept: the peer's close would make it readable
        if ($withStream) {
            $this->loop->onReadable($pair[0], static function (): void {
            });
        }
        $async = \pcntl_async_signals(true);
        \pcntl_signal(\SIGUSR2, fn () => $this->loop->stop());
        $pid = $this->signalFromAChild(\SIGUSR2);
        TickCounter::$cell = \FFI::new('int64_t[1]');
        $before = TickCounter::$count;
        try {
            $this->loop->run();
            self::assertLessThan(100, TickCounter::$count - $before, 'the loop spun instead of waiting');
        } finally {
            TickCounter::$cell = null;
            while (\pcntl_waitpid($pid, $status) === -1 && \pcntl_get_last_errno() === \PCNTL_EINTR) {
                // the child's signal interrupted the wait for it
            }
            \pcntl_signal(\SIGUSR2, \SIG_DFL);
            \pcntl_async_signals($async);
        }
    }

    public function testSignal(): void
    {
        if (!\function_exists('posix_kill')) {
            self::markTestSkipped('needs ext-posix');
        }
        $got = null;
        $id = $this->loop->onSignal(\SIGUSR2, function (int $id, int $signal) use (&$got): void {
            $got = $signal;
            $this->loop->cancel($id);
        });
        $this->loop->delay(0.01, static fn () => \posix_kill(\getmypid(), \SIGUSR2));
        $this->loop->run();
        self::assertSame(\SIGUSR2, $got);
        self::assertArrayNotHasKey($id, $this->loop->watchers());
    }

    public function testSignalWakesABlockedWait(): void
    {
        $pid = $this->signalFromAChild(\SIGUSR2);
        $got = false;
        $this->loop->onSignal(\SIGUSR2, function (int $id) use (&$got): void {
            $got = true;
            $this->loop->cancel($id);
        });
        $start = \hrtime(true);
        $this->loop->run();
        \pcntl_waitpid($pid, $status);
        self::assertTrue($got);
        self::assertLessThan(2.0, (\hrtime(true) - $start) / 1e9);
    }

    /**
     * A signal's callback that leaves errno set (here a failed open(); in a worker, go()
     * making a Fiber, whose stack naming fails with EINVAL on some kernels) must not turn
     * the interrupted wait it woke into a fatal loop error: a graceful stop with an open
     * WebSocket crashed its worker so.
     */
    public function testASignalCallbackThatSetsErrnoDoesNotFailTheInterruptedWait(): void
    {
        $pid = $this->signalFromAChild(\SIGUSR2);
        $got = false;
        $this->loop->onSignal(\SIGUSR2, function (int $id) use (&$got): void {
            $got = @\fopen('/nonexistent/petrel-' . \getmypid(), 'r') === false; // errno ENOENT
            $this->loop->cancel($id);
        });
        $this->loop->run();
        \pcntl_waitpid($pid, $status);
        self::assertTrue($got);
    }

    public function testManyTimersCancelledLeaveNothingBehind(): void
    {
        for ($i = 0; $i < 10000; $i++) {
            $this->loop->cancel($this->loop->delay(10, static function (): void {
            }));
        }
        self::assertSame([], $this->loop->watchers());
        self::assertFalse($this->loop->isReferenced());
    }

    public function testLevelTriggeredReadableRunsEachTickUntilRead(): void
    {
        [$a, $b] = $this->pair();
        \fwrite($b, 'x');
        $ticks = 0;
        $this->loop->onReadable($a, function (int $id, $stream) use (&$ticks): void {
            if (++$ticks === 3) {
                self::assertSame('x', \fread($stream, 10));
                $this->loop->cancel($id);
            }
        });
        $this->loop->run();
        self::assertSame(3, $ticks);
    }

    public function testReadableAndWritableWatchersOnOneStream(): void
    {
        [$a, $b] = $this->pair();
        \fwrite($b, 'x');
        $log = [];
        $write = $this->loop->onWritable($a, function (int $id) use (&$log): void {
            $log[] = 'writable';
            $this->loop->disable($id);
        });
        $this->loop->onReadable($a, function (int $id) use (&$log, $write): void {
            $log[] = 'readable';
            if (\count($log) === 3) {
                $this->loop->cancel($id);
                $this->loop->cancel($write);
            }
        });
        $this->loop->run();
        self::assertSame(['readable', 'writable', 'readable'], $log, 'one tick runs both, readable first; the disabled one no more');
    }

    public function testSeveralWatchersOnOneStreamAndCancelDuringTheTick(): void
    {
        [$a, $b] = $this->pair();
        \fwrite($b, 'x');
        $log = [];
        $ids = [];
        foreach (['one', 'two', 'three'] as $name) {
            $ids[$name] = $this->loop->onReadable($a, function (int $id) use (&$log, &$ids, $name): void {
                $log[] = $name;
                if ($name === 'one') {
                    $this->loop->cancel($ids['two'] ?? 0);
                }
                $this->loop->cancel($id);
            });
        }
        $this->loop->run();
        self::assertSame(['one', 'three'], $log);
        self::assertSame([], $this->loop->watchers());
        $again = false; // the stream can be watched anew after all its watchers went
        $this->loop->onReadable($a, function (int $id) use (&$again): void {
            $again = true;
            $this->loop->cancel($id);
        });
        $this->loop->run();
        self::assertTrue($again);
    }

    public function testWatcherReenabledOnStreamThatBecameReadableWhileDisabled(): void
    {
        [$a, $b] = $this->pair();
        $runs = 0;
        $id = $this->loop->onReadable($a, function (int $id) use (&$runs): void {
            $runs++;
            $this->loop->cancel($id);
        });
        $this->loop->disable($id);
        \fwrite($b, 'x');
        $this->loop->delay(0.01, static function (): void {
        });
        $this->loop->run();
        self::assertSame(0, $runs);
        $this->loop->enable($id);
        $this->loop->run();
        self::assertSame(1, $runs);
    }

    public function testStreamClosedAfterItsWatcherWasCancelledClosesTheConnection(): void
    {
        [$a, $b] = $this->pair();
        $this->loop->cancel($this->loop->onReadable($a, static function (): void {
        }));
        \fclose($a);
        self::assertTrue($this->peerSeesEof($b), 'the peer sees EOF once the stream is closed');
    }

    public function testStreamClosedWithADisabledWatcherStillClosesTheConnection(): void
    {
        [$a, $b] = $this->pair();
        $id = $this->loop->onReadable($a, static function (): void {
        });
        $this->loop->disable($id);
        \fclose($a);
        self::assertTrue($this->peerSeesEof($b), 'the peer sees EOF within seconds');
        $this->loop->cancel($id);
        self::assertSame([], $this->loop->watchers());
    }

    public function testExceptionFromReadableCallbackLeavesTheLoopConsistent(): void
    {
        [$a, $b] = $this->pair();
        [$c, $d] = $this->pair();
        \fwrite($b, 'x');
        \fwrite($d, 'x');
        $runs = [];
        $throwing = $this->loop->onReadable($a, static function () use (&$runs): void {
            $runs[] = 'a';
            throw new \RuntimeException('boom');
        });
        $this->loop->onReadable($c, function (int $id) use (&$runs): void {
            $runs[] = 'c';
            $this->loop->cancel($id);
        });
        try {
            $this->loop->run();
            self::fail('expected the exception');
        } catch (\RuntimeException) {
        }
        $this->loop->cancel($throwing);
        $this->loop->run();
        self::assertContains('c', $runs);
        self::assertSame([], $this->loop->watchers());
    }

    public function testSignalWakesAWaitWithStreamsWatched(): void
    {
        [$a] = $this->pair();
        $stream = $this->loop->onReadable($a, static function (): void {
        });
        $pid = $this->signalFromAChild(\SIGUSR2);
        $got = false;
        $this->loop->onSignal(\SIGUSR2, function (int $id) use (&$got, $stream): void {
            $got = true;
            $this->loop->cancel($id);
            $this->loop->cancel($stream);
        });
        $guard = $this->loop->delay(10, function (): void {
            $this->loop->stop();
        });
        $this->loop->unreference($guard);
        $this->loop->run();
        $this->loop->cancel($guard);
        \pcntl_waitpid($pid, $status);
        self::assertTrue($got);
    }

    public function testThousandsOfStreams(): void
    {
        if (($reason = $this->manyStreamsUnsupported()) !== null) {
            self::markTestSkipped($reason);
        }
        $pairs = 3000;
        // two ends, a driver may hold a duplicate of each watched one
        if (($reason = OpenFiles::atLeast(4 * $pairs + 200)) !== null) {
            self::markTestSkipped($reason);
        }
        $streams = [];
        $ids = [];
        $expected = [];
        for ($i = 0; $i < $pairs; $i++) {
            $streams[$i] = $this->pair();
            $ids[$i] = $this->loop->onReadable($streams[$i][0], function (int $id) use (&$got, &$ids, $i): void {
                $got[] = $i;
                $this->loop->cancel($id);
                unset($ids[$i]);
            });
            if ($i % 3 === 0) {
                $expected[] = $i;
            }
        }
        foreach ($expected as $i) {
            \fwrite($streams[$i][1], 'x');
        }
        $got = [];
        $this->loop->delay(0.05, function () use (&$ids): void {
            foreach ($ids as $id) {
                $this->loop->cancel($id);
            }
        });
        $this->loop->run();
        \sort($got);
        self::assertSame($expected, $got);
        self::assertSame([], $this->loop->watchers());
    }

    /**
     * Forks a child that sends $signal to this process 50 ms later, while the loop waits
     * (the test skips without ext-pcntl); the child's pid, for pcntl_waitpid().
     */
    private function signalFromAChild(int $signal): int
    {
        if (!\function_exists('pcntl_fork')) {
            self::markTestSkipped('needs ext-pcntl');
        }
        $parent = (int) \getmypid();
        $pid = \pcntl_fork();
        if ($pid === 0) {
            \usleep(50000);
            \posix_kill($parent, $signal);
            exit(0);
        }

        return $pid;
    }

    private function peerSeesEof(mixed $peer): bool
    {
        $eof = false;
        $guard = 0;
        $id = $this->loop->onReadable($peer, function (int $id, $stream) use (&$eof, &$guard): void {
            if (@\fread($stream, 100) === '' && \feof($stream)) {
                $eof = true;
                $this->loop->cancel($id);
                $this->loop->cancel($guard);
            }
        });
        $guard = $this->loop->delay(5, function () use ($id): void {
            $this->loop->cancel($id);
        });
        $this->loop->run();

        return $eof;
    }

    /** @return array{resource, resource} */
    private function pair(): array
    {
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertNotFalse($pair);
        \stream_set_blocking($pair[0], false);
        \stream_set_blocking($pair[1], false);

        return [$pair[0], $pair[1]];
    }
}
