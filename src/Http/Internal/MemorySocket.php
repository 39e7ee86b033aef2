<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\Suspension;
use Petrel\Socket\ClosedException;
use Petrel\Socket\SocketError;
use Petrel\Socket\SocketException;

/**
 * An in-memory ConnectionSocket, for driving an Http1Connection without a network (like
 * Go's httptest recorder): the test queues the client's bytes as chunks (each read returns
 * at most one chunk, so a request can arrive whole, byte by byte or in any split) and reads
 * back everything written. A read with nothing queued suspends until feed() or feedEnd().
 *
 * @internal
 */
final class MemorySocket implements ConnectionSocket
{
    /** @var list<string> */
    private array $chunks = [];
    private bool $peerEnded = false;
    private bool $ended = false;
    private bool $closed = false;
    private string $written = '';
    private string $lineBuffer = '';
    private int $bytesRead = 0;
    private ?Suspension $reader = null;
    /** @var (\Closure(bool): void)|null whenReadable()'s */
    private ?\Closure $onReadable = null;

    /** @param list<string> $chunks the client's first bytes */
    public function __construct(array $chunks = [], bool $peerEnded = false)
    {
        foreach ($chunks as $chunk) {
            $this->feed($chunk);
        }
        $this->peerEnded = $peerEnded;
    }

    /** Queues bytes from the client, waking a waiting reader. */
    public function feed(string $bytes): void
    {
        if ($bytes !== '') {
            $this->chunks[] = $bytes;
            $this->reader?->resume();
            $this->callBack();
        }
    }

    /** The client half-closes: reads return null once the queued bytes are read. */
    public function feedEnd(): void
    {
        $this->peerEnded = true;
        $this->reader?->resume();
        $this->callBack();
    }

    /** Everything written so far. */
    public function written(): string
    {
        return $this->written;
    }

    /** Whether end() half-closed the sending side. */
    public function isEnded(): bool
    {
        return $this->ended;
    }

    /** Bytes of the client's that were read. */
    public function bytesRead(): int
    {
        return $this->bytesRead;
    }

    /** Whether client bytes are queued and unread. */
    public function hasUnread(): bool
    {
        return $this->chunks !== [];
    }

    public function read(int $maxBytes = 65536): ?string
    {
        if ($maxBytes < 1) {
            throw new SocketError("Cannot read {$maxBytes} bytes: the maximum must be at least 1");
        }
        while ($this->chunks === []) {
            if ($this->closed) {
                throw new ClosedException('Cannot read: the memory socket is closed');
            }
            if ($this->peerEnded) {
                return null;
            }
            $this->wait();
        }
        if ($this->closed) {
            throw new ClosedException('Cannot read: the memory socket is closed');
        }
        $chunk = \array_shift($this->chunks);
        if (\strlen($chunk) > $maxBytes) {
            \array_unshift($this->chunks, \substr($chunk, $maxBytes));
            $chunk = \substr($chunk, 0, $maxBytes);
        }
        $this->bytesRead += \strlen($chunk);

        return $chunk;
    }

    public function readExactly(int $length): string
    {
        while (\strlen($this->lineBuffer) < $length) {
            $this->lineBuffer .= $this->read() ?? throw new ClosedException('The memory socket ended early');
        }
        $data = \substr($this->lineBuffer, 0, $length);
        $this->lineBuffer = \substr($this->lineBuffer, $length);

        return $data;
    }

    public function readLine(string $delimiter = "\n", int $maxBytes = 65536): ?string
    {
        while (($position = \strpos($this->lineBuffer, $delimiter)) === false) {
            if (\strlen($this->lineBuffer) > $maxBytes) {
                throw new SocketException("No line delimiter within {$maxBytes} bytes");
            }
            $data = $this->read();
            if ($data === null) {
                $rest = $this->lineBuffer;
                $this->lineBuffer = '';

                return $rest === '' ? null : $rest;
            }
            $this->lineBuffer .= $data;
        }
        $line = \substr($this->lineBuffer, 0, $position + \strlen($delimiter));
        $this->lineBuffer = \substr($this->lineBuffer, $position + \strlen($delimiter));

        return $line;
    }

    public function write(string $data): void
    {
        if ($this->closed || $this->ended) {
            throw new ClosedException('Cannot write: the memory socket is ' . ($this->closed ? 'closed' : 'half-closed'));
        }
        $this->written .= $data;
    }

    public function end(string $data = ''): void
    {
        $this->write($data);
        $this->ended = true;
    }

    public function close(): void
    {
        $this->closed = true;
        $this->onReadable = null;
        $this->reader?->throw(new ClosedException('The memory socket was closed while waiting on it'));
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    public function getLocalAddress(): string
    {
        return 'memory:server';
    }

    public function getRemoteAddress(): string
    {
        return 'memory:client';
    }

    public function whenReadable(\Closure $callback): void
    {
        if ($this->closed) {
            throw new ClosedException('Cannot read: the memory socket is closed');
        }
        $this->onReadable = $callback;
        if ($this->chunks !== [] || $this->peerEnded) {
            $this->callBack();
        }
    }

    public function peerClosed(): bool
    {
        return $this->closed || ($this->peerEnded && $this->chunks === []);
    }

    /** whenReadable()'s callback, from the loop as a real socket's would be. */
    private function callBack(): void
    {
        if ($this->onReadable !== null) {
            $callback = $this->onReadable;
            $this->onReadable = null;
            Scheduler::get()->driver->defer(static function () use ($callback): void {
                $callback(true); // the hint of a loop that cannot tell
            });
        }
    }

    private function wait(): void
    {
        if ($this->reader !== null) {
            throw new SocketError('Another coroutine is already reading from this socket');
        }
        $this->reader = Scheduler::get()->suspension();
        try {
            $this->reader->suspend();
        } finally {
            $this->reader = null;
        }
    }
}
