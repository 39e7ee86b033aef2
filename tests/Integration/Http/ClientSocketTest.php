<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Http;

use Petrel\Http\Internal\ClientSocket;
use Petrel\Socket\StreamSocket;
use Petrel\Tests\Support\AsyncTestCase;

use function Petrel\go;
use function Petrel\sleep;

/**
 * The HTTP server's socket: its fast paths (awaitReadable(), the kept read watcher,
 * readWaits(), peerClosed()) — moved here from StreamSocket's public surface.
 */
final class ClientSocketTest extends AsyncTestCase
{
    public function testAwaitReadableWaitsForBytesOrEofWithoutReading(): void
    {
        $this->async(function (): void {
            [$a, $b] = self::pair();
            $waiter = go(static function () use ($a): string {
                $a->awaitReadable();

                return (string) $a->read();
            });
            sleep(0.01);
            self::assertFalse($waiter->isFinished(), 'nothing to read yet');
            $b->write('next request');
            self::assertSame('next request', $waiter->join());

            $b->write('x');
            self::assertSame('x', $a->read(1));
            $b->end();
            $waits = $a->readWaits();
            $a->awaitReadable();
            self::assertNull($a->read(), 'readable and empty after awaitReadable() is EOF');
            self::assertSame($waits + 1, $a->readWaits(), 'with no second wait');
            $a->close();
            $b->close();
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
