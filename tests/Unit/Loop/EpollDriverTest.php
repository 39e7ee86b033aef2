<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Loop;

use Petrel\Loop\Driver;
use Petrel\Loop\EpollDriver;

final class EpollDriverTest extends DriverTestCase
{
    protected function createDriver(): Driver
    {
        $reason = EpollDriver::unavailableReason();
        if ($reason !== null) {
            self::markTestSkipped("epoll driver not available: {$reason}");
        }

        return new EpollDriver();
    }

    public function testForkedChildNeverTouchesTheParentsInstanceAndClosesWhatItInherited(): void
    {
        if (!\function_exists('pcntl_fork')) {
            self::markTestSkipped('needs ext-pcntl');
        }
        $loop = $this->createDriver();
        $runs = 0;
        [$id, $b] = $this->watchOnce($loop, $runs);
        self::assertSame(1, \preg_match('/fd (\d+)/', $loop->watchers()[$id]['detail'], $match));
        $duplicate = '/proc/self/fd/' . ($match[1] ?? '?');
        $target = \readlink($duplicate);
        $pid = \pcntl_fork();
        if ($pid === 0) {
            $code = 0;
            $fresh = new EpollDriver(); // what Scheduler::reset() does in a worker
            if (@\readlink($duplicate) === $target) {
                $code |= 1; // the parent's driver still holds a duplicate here
            }
            $loop->cancel($id); // the old driver used on: must not EPOLL_CTL_DEL on the shared instance
            unset($fresh);
            exit($code);
        }
        \pcntl_waitpid($pid, $status);
        self::assertSame(0, \pcntl_wexitstatus($status), 'the child closed the inherited duplicate (exit code 1: it did not)');
        $this->assertRegistrationFires($loop, $id, $b, $runs, "the child's cancel() did not remove the parent's registration");
    }

    public function testAChildOfAPlainForkThatUsesTheDriverLeavesTheParentsRegistrationAlone(): void
    {
        if (!\function_exists('pcntl_fork')) {
            self::markTestSkipped('needs ext-pcntl');
        }
        $loop = $this->createDriver();
        $runs = 0;
        [$id, $b] = $this->watchOnce($loop, $runs);
        $pid = \pcntl_fork(); // no Scheduler::reset() nor new driver: the driver must notice by itself
        if ($pid === 0) {
            $loop->delay(0.001, static function () use ($loop): void {
                $loop->stop();
            });
            $loop->run(); // a wait: on an instance of the child's own
            $loop->cancel($id); // must not EPOLL_CTL_DEL on the parent's instance
            exit(0);
        }
        \pcntl_waitpid($pid, $status);
        self::assertSame(0, \pcntl_wexitstatus($status));
        $this->assertRegistrationFires($loop, $id, $b, $runs, "the child's wait or cancel() touched the parent's registration");
    }

    public function testAwaitReadableWaitsForItsStreamAloneAndRunsNoCallback(): void
    {
        $loop = $this->createDriver();
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertNotFalse($pair);
        [$a, $b] = $pair;
        $calls = 0;
        $id = $loop->onReadable($a, static function () use (&$calls): void {
            $calls++;
        });
        \fwrite($b, 'reply');
        self::assertTrue($loop->awaitReadable($id), 'its stream alone is readable and nothing else is due');
        self::assertSame(0, $calls, 'the caller reads; the callback does not run');

        $timer = $loop->delay(0.05, static function (): void {
        });
        \fread($a, 10);
        $start = \hrtime(true);
        self::assertFalse($loop->awaitReadable($id), 'the timer came due first');
        self::assertGreaterThanOrEqual(0.04, (\hrtime(true) - $start) / 1e9, 'it waited until the timer was due');
        $loop->cancel($timer);
        $loop->cancel($id);
        \fclose($a);
        \fclose($b);
    }

    public function testAwaitReadableReportsAPeerThatClosed(): void
    {
        $loop = $this->createDriver();
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertNotFalse($pair);
        [$a, $b] = $pair;
        $id = $loop->onReadable($a, static function (): void {
        });
        \fclose($b);
        $start = \hrtime(true);
        self::assertTrue($loop->awaitReadable($id), 'a hang-up is for the reader to see');
        self::assertLessThan(0.5, (\hrtime(true) - $start) / 1e9);
        self::assertSame('', \fread($a, 10));
        self::assertTrue(\feof($a));
        $loop->cancel($id);
        \fclose($a);
    }

    public function testAwaitReadableIsFalseWhenTheNextTickWouldDoMore(): void
    {
        $loop = $this->createDriver();
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        $other = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertNotFalse($pair);
        self::assertNotFalse($other);
        $noop = static function (): void {
        };
        $id = $loop->onReadable($pair[0], $noop);
        \fwrite($pair[1], 'reply');

        $defer = $loop->defer($noop);
        self::assertFalse($loop->awaitReadable($id), 'a deferred callback is queued');
        $loop->cancel($defer);

        $timer = $loop->delay(0.0, $noop);
        \usleep(1000);
        self::assertFalse($loop->awaitReadable($id), 'a timer is due');
        $loop->cancel($timer);

        $otherId = $loop->onReadable($other[0], $noop);
        \fwrite($other[1], 'x');
        self::assertFalse($loop->awaitReadable($id), 'another watched stream is ready');
        $loop->cancel($otherId);

        $writer = $loop->onWritable($pair[0], $noop);
        self::assertFalse($loop->awaitReadable($id), 'its stream is watched for writing too');
        $loop->cancel($writer);

        $loop->disable($id);
        self::assertFalse($loop->awaitReadable($id), 'a disabled watcher');
        $loop->enable($id);
        self::assertFalse($loop->awaitReadable($id + 1000), 'no such watcher');
        self::assertTrue($loop->awaitReadable($id), 'nothing else left');
        $loop->cancel($id);
    }

    public function testReadInterestOutlivesADisabledWatcherUntilBytesArriveUnread(): void
    {
        $loop = $this->createDriver();
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertNotFalse($pair);
        [$a, $b] = $pair;
        $reads = 0;
        $id = $loop->onReadable($a, function (int $id, $stream) use (&$reads, $loop): void {
            $reads++;
            \fread($stream, 10);
            $loop->disable($id); // a client that has its reply
        });
        self::assertSame(1, \preg_match('/fd (\d+)/', $loop->watchers()[$id]['detail'], $match));
        $fd = (int) $match[1];
        \fwrite($b, 'reply');
        $loop->run();
        self::assertSame(1, $reads);
        self::assertTrue(self::inEpollInterest($fd), 'read interest stays registered while nothing arrives: no epoll_ctl() per round trip');

        $loop->enable($id);
        \fwrite($b, 'reply');
        $loop->run();
        self::assertSame(2, $reads);

        // Bytes nobody waits for: the first wait that sees them drops the interest, so a
        // level-triggered descriptor cannot keep waking the loop.
        \fwrite($b, 'unasked');
        $tick = $loop->delay(0.01, static function (): void {
        });
        $loop->run();
        $loop->cancel($tick);
        self::assertFalse(self::inEpollInterest($fd), 'the interest was dropped when bytes arrived with nobody reading');
        self::assertSame(2, $reads);

        $loop->enable($id);
        $loop->run();
        self::assertSame(3, $reads, 'enabled again, the watcher sees the bytes waiting');
        $loop->cancel($id);
    }

    /** Whether some epoll instance of this process watches descriptor $fd (/proc's fdinfo). */
    private static function inEpollInterest(int $fd): bool
    {
        foreach (\glob('/proc/self/fdinfo/*') ?: [] as $info) {
            $text = @\file_get_contents($info);
            if ($text !== false && \preg_match('/^tfd:\s+' . $fd . '\s/m', $text) === 1) {
                return true;
            }
        }

        return false;
    }

    /**
     * A socket pair whose first end $loop watches; the watcher counts its runs in $runs and
     * cancels itself after its first read (the fork tests' parent-side registration).
     *
     * @return array{int, resource} the watcher id and the other end, to write to
     */
    private function watchOnce(Driver $loop, int &$runs): array
    {
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertNotFalse($pair);
        [$a, $b] = $pair;
        $id = $loop->onReadable($a, function (int $id, $stream) use (&$runs, $loop): void {
            $runs++;
            \fread($stream, 10);
            $loop->cancel($id);
        });

        return [$id, $b];
    }

    /**
     * Writes to $peer and runs $loop (at most 5 s): the registration $id must fire once.
     *
     * @param resource $peer
     */
    private function assertRegistrationFires(Driver $loop, int $id, mixed $peer, int &$runs, string $message): void
    {
        \fwrite($peer, 'x');
        $guard = $loop->delay(5, static function () use ($loop, $id): void {
            $loop->cancel($id);
        });
        $loop->unreference($guard);
        $loop->run();
        $loop->cancel($guard);
        self::assertSame(1, $runs, $message);
    }
}
