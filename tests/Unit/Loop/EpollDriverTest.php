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
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertNotFalse($pair);
        [$a, $b] = $pair;
        $runs = 0;
        $id = $loop->onReadable($a, function (int $id, $stream) use (&$runs, $loop): void {
            $runs++;
            \fread($stream, 10);
            $loop->cancel($id);
        });
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
        \fwrite($b, 'x');
        $guard = $loop->delay(5, static function () use ($loop, $id): void {
            $loop->cancel($id);
        });
        $loop->unreference($guard);
        $loop->run();
        $loop->cancel($guard);
        self::assertSame(1, $runs, "the child's cancel() did not remove the parent's registration");
    }
}
