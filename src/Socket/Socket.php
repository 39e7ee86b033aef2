<?php

declare(strict_types=1);

namespace Petrel\Socket;

/**
 * A connected, full-duplex byte stream. Calls look synchronous: they suspend the calling
 * coroutine (never the worker) until done, and honour the coroutine's deadlines and
 * cancellation. One coroutine may read while another writes; two concurrent readers are
 * a programming error, concurrent writes are queued in order.
 */
interface Socket
{
    /**
     * Returns the next bytes available (at least one, at most $maxBytes), waiting if there
     * are none yet; null once the peer has closed its side and everything was read.
     */
    public function read(int $maxBytes = 65536): ?string;

    /** @throws ClosedException if the stream ends before $length bytes came */
    public function readExactly(int $length): string;

    /**
     * Returns the bytes up to and including $delimiter; at EOF, whatever is left (null if
     * nothing is).
     *
     * @throws SocketException if no delimiter shows up within $maxBytes
     */
    public function readLine(string $delimiter = "\n", int $maxBytes = 65536): ?string;

    /**
     * Writes all of $data, waiting while the kernel's send buffer is full (backpressure).
     * A wait cut short by a deadline or a cancellation after part of $data went out closes
     * the socket: the peer holds a cut message, and whatever followed would be read as the
     * rest of it. A write interrupted before any of its bytes went out leaves it open.
     */
    public function write(string $data): void;

    /** Writes $data, then shuts down the sending side (half-close); reading goes on. */
    public function end(string $data = ''): void;

    /** Closes both directions; coroutines waiting in read() or write() get a ClosedException. */
    public function close(): void;

    public function isClosed(): bool;

    public function getLocalAddress(): string;

    public function getRemoteAddress(): string;
}
