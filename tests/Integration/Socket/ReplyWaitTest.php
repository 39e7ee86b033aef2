<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Socket;

use Petrel\Coroutine\Scheduler;
use Petrel\Loop\DriverFactory;
use Petrel\Socket\StreamSocket;
use Petrel\Tests\Support\CountingDriver;
use PHPUnit\Framework\TestCase;

use function Petrel\go;
use function Petrel\run;

/**
 * A client awaiting a reply (expectReply()) waits in place when the loop has nothing else
 * to do (Scheduler::awaitReadable()), and through the loop whenever it has.
 */
final class ReplyWaitTest extends TestCase
{
    private CountingDriver $driver;

    protected function setUp(): void
    {
        $this->driver = new CountingDriver(DriverFactory::create());
        Scheduler::reset($this->driver);
    }

    protected function tearDown(): void
    {
        Scheduler::reset();
    }

    public function testRepliesAwaitedWhileTheLoopIsIdleTakeNoLoopTurn(): void
    {
        if (\getenv('PETREL_DRIVER') === 'select') {
            self::markTestSkipped('the select driver always waits through the loop');
        }
        [$client, $server] = self::pair();
        run(static function () use ($client, $server): void {
            for ($i = 0; $i < 20; $i++) {
                $client->write('?');
                self::assertSame('?', \fread($server, 10));
                \fwrite($server, "reply{$i}");
                $client->expectReply();
                self::assertSame("reply{$i}", $client->read());
            }
        });
        // The first wait goes through the loop: spawn() started the coroutine, and its spawner
        // (the main context) waits behind it. A read callback resumed it for the others.
        self::assertSame(1, $this->driver->readableCallbacks, 'only the first of 20 reads went through the loop');
    }

    public function testACoroutineSpawnedMeanwhileDoesNotHoldItsSpawnerBack(): void
    {
        [$client, $server] = self::pair();
        $log = [];
        run(static function () use ($client, $server, &$log): void {
            // A read callback resumes this coroutine: the loop has nothing behind it...
            $client->expectReply();
            go(static fn () => \fwrite($server, 'go'));
            $client->read();
            // ...but a coroutine it spawns has its spawner behind it: that one suspends.
            $child = go(static function () use ($client, $server, &$log): void {
                for ($i = 0; $i < 5; $i++) {
                    \fwrite($server, 'x');
                    $client->expectReply();
                    $client->read(1);
                    $log[] = "child {$i}";
                }
            });
            $log[] = 'spawner';
            $child->join();
        });
        self::assertSame('spawner', $log[0], 'the spawner went on at the child\'s first wait');
    }

    public function testOnlyTheLastReplyOfATickMayWaitForTheNextInPlace(): void
    {
        if (\getenv('PETREL_DRIVER') === 'select') {
            self::markTestSkipped('the select driver always waits through the loop');
        }
        [$a, $serverA] = self::pair();
        [$b, $serverB] = self::pair();
        $driver = $this->driver;
        run(static function () use ($a, $b, $serverA, $serverB, $driver): void {
            $twoReplies = static function (StreamSocket $client): void {
                $client->expectReply();
                self::assertSame('first', $client->read());
                $client->expectReply();
                self::assertSame('second', $client->read());
            };
            $readers = [go(static fn () => $twoReplies($a)), go(static fn () => $twoReplies($b))];
            \Petrel\sleep(0.01); // both wait for their first reply
            $asked = $driver->awaitReadable;
            // Both first replies ready in one tick, the second ones 20 ms later: a's callback
            // runs with b's after it, so a must not wait in place (it would find b ready and
            // give up, an epoll_wait() for nothing); b's is the tick's last, so b may.
            \fwrite($serverA, 'first');
            \fwrite($serverB, 'first');
            $driver->delay(0.02, static function () use ($serverA, $serverB): void {
                \fwrite($serverA, 'second');
                \fwrite($serverB, 'second');
            });
            foreach ($readers as $reader) {
                $reader->join();
            }
            self::assertSame(1, $driver->awaitReadable - $asked, 'only the coroutine resumed last in its tick asked to wait in place');
        });
    }

    public function testTimersAndOtherCoroutinesStillRunBetweenReplies(): void
    {
        [$client, $server] = self::pair();
        $ticks = 0;
        run(static function () use ($client, $server, &$ticks): void {
            $timer = Scheduler::get()->driver->repeat(0.001, static function () use (&$ticks): void {
                $ticks++;
            });
            $other = go(static function () use (&$ticks): void {
                while ($ticks < 5) {
                    \Petrel\sleep(0.0);
                }
            });
            $start = \hrtime(true);
            while (\hrtime(true) - $start < 100_000_000 && $ticks < 5) {
                \fwrite($server, 'r');
                $client->expectReply();
                $client->read();
            }
            Scheduler::get()->driver->cancel($timer);
            $other->join();
        });
        self::assertGreaterThanOrEqual(5, $ticks, 'the timer ran while the client went on reading replies');
    }

    /** @return array{StreamSocket, resource} */
    private static function pair(): array
    {
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertNotFalse($pair);
        \stream_set_blocking($pair[1], false);

        return [new StreamSocket($pair[0]), $pair[1]];
    }
}
