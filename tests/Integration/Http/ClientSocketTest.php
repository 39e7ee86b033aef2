<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Http;

use Petrel\Coroutine\Scheduler;
use Petrel\Http\Internal\ClientSocket;
use Petrel\Socket\ClosedException;
use Petrel\Socket\StreamSocket;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\go;
use function Petrel\sleep;

/**
 * The HTTP server's socket: its fast paths (whenReadable(), the kept read watcher,
 * readWaits(), peerClosed()) — moved here from StreamSocket's public surface.
 */
final class ClientSocketTest extends AsyncTestCase
{
    public function testWhenReadableCallsBackOnceOnBytesOrEofWithoutReading(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $calls = 0;
            $woken = Scheduler::get()->suspension();
            $a->whenReadable(static function () use (&$calls, $woken): void {
                ++$calls;
                $woken->resume();
            });
            sleep(0.01);
            self::assertSame(0, $calls, 'nothing to read yet');
            $b->write('next request');
            $woken->suspend(1.0);
            sleep(0.01);
            self::assertSame(1, $calls, 'once, though the bytes are still unread');
            self::assertSame('next request', $a->read());

            $b->end();
            $waits = $a->readWaits();
            $woken = Scheduler::get()->suspension();
            $a->whenReadable($woken->resume(...));
            $woken->suspend(1.0);
            self::assertNull($a->read(), 'readable and empty after the callback is EOF');
            self::assertSame($waits, $a->readWaits(), 'with no wait');
            $a->close();
            $b->close();
        });
    }

    public function testACloseForgetsTheCallback(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $called = false;
            $a->whenReadable(static function () use (&$called): void {
                $called = true;
            });
            $a->close();
            $b->close();
            sleep(0.01);
            self::assertFalse($called);
            $this->expectException(ClosedException::class);
            $a->whenReadable(static function (): void {
            });
        });
    }

    public function testTheReadWatcherIsKeptAndDisablesItselfWhenBytesComeWithNobodyReading(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $reader = go(static fn () => $a->read());
            $b->write('one');
            self::assertSame('one', $reader->join(), 'read after a wait: the watcher exists');
            $b->write('two');
            $driver = \Petrel\Coroutine\Scheduler::get()->driver;
            sleep(0.02);
            $enabled = \array_filter($driver->watchers(), static fn (array $w): bool => $w['enabled'] && $w['type'] === 'readable');
            self::assertSame([], $enabled, 'the kept watcher disabled itself');
            self::assertSame('two', $a->read(), 'and the bytes are still there for the next read');
            $reader = go(static fn () => $a->read());
            $b->write('three');
            self::assertSame('three', $reader->join(), 'a later wait enables it again');
            $a->close();
            $b->close();
        });
    }

    public function testPeerClosedSeesACloseButNotSilenceNorUnreadBytes(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            self::assertFalse($a->peerClosed());
            $b->write('unread');
            self::assertFalse($a->peerClosed(), 'unread bytes are not a close');
            self::assertSame('unread', $a->read());
            $b->close();
            self::assertTrue($a->peerClosed());
            $a->close();
            self::assertTrue($a->peerClosed());
        });
    }

    /** @return array{ClientSocket, StreamSocket} */
    private static function pair(): array
    {
        $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
        self::assertNotFalse($pair);

        return [new ClientSocket($pair[0], 'a'), new StreamSocket($pair[1], 'b')];
    }
}
