<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Socket\ClosedException;
use Petrel\Socket\Internal\Readiness;
use Petrel\Socket\StreamSocket;

/**
 * A connection accepted by the HTTP server: a StreamSocket plus the server's fast paths,
 * which act on the socket's Readiness (shared with it) rather than on StreamSocket's public
 * surface. Its read watcher stays enabled from one request to the next (see
 * Readiness::keepReadWatcher()): two loop calls less per request.
 *
 * @internal
 */
final class ClientSocket implements ConnectionSocket
{
    private readonly StreamSocket $socket;
    private readonly Readiness $readiness;

    /** @param resource $stream an accepted, connected stream socket */
    public function __construct(private readonly mixed $stream, string $remoteAddress)
    {
        $this->readiness = new Readiness($stream);
        $this->readiness->keepReadWatcher();
        $this->socket = new StreamSocket($stream, $remoteAddress, $this->readiness);
    }

    /**
     * Right after whenReadable() called back (between keep-alive requests) the bytes are there: read
     * them here, two calls less than through StreamSocket::read(). Anything else (no bytes
     * after all, EOF, TLS, a closed socket) takes StreamSocket's way, which sees the flag.
     */
    public function read(int $maxBytes = 65536): ?string
    {
        if ($this->readiness->polled && !$this->readiness->cancelled && $maxBytes > 0) {
            $data = @\fread($this->stream, $maxBytes);
            if ($data !== false && $data !== '') {
                $this->readiness->polled = false;

                return $data;
            }
        }

        return $this->socket->read($maxBytes);
    }

    public function readExactly(int $length): string
    {
        return $this->socket->readExactly($length);
    }

    public function readLine(string $delimiter = "\n", int $maxBytes = 65536): ?string
    {
        return $this->socket->readLine($delimiter, $maxBytes);
    }

    public function write(string $data): void
    {
        $this->socket->write($data);
    }

    public function end(string $data = ''): void
    {
        $this->socket->end($data);
    }

    public function close(): void
    {
        $this->socket->close();
        $this->readiness->callWhenReadable(null); // it holds the connection: no cycle left
    }

    public function isClosed(): bool
    {
        return $this->socket->isClosed();
    }

    public function getLocalAddress(): string
    {
        return $this->socket->getLocalAddress();
    }

    public function getRemoteAddress(): string
    {
        return $this->socket->getRemoteAddress();
    }

    /**
     * Readable-and-empty after the callback is EOF for the next read, with no second wait
     * (the Readiness's polled flag). The HTTP connection reads with read() only, so nothing
     * sits in the StreamSocket's own buffer meanwhile.
     */
    public function whenReadable(\Closure $callback): void
    {
        if ($this->readiness->cancelled) {
            throw new ClosedException("Cannot read: the connection to {$this->getRemoteAddress()} is closed");
        }
        $this->readiness->callWhenReadable($callback);
    }

    /** How many times a read had to wait for data (a counter that only grows). */
    public function readWaits(): int
    {
        return $this->readiness->readWaits;
    }

    /**
     * A poll and a peek (feof() on a socket): true at EOF and after a reset (a client that
     * exits with our response unread sends RST, not FIN). A TLS stream is never reported
     * closed (its bytes are records, not data).
     */
    public function peerClosed(): bool
    {
        if ($this->socket->isClosed() || !\is_resource($this->stream)) {
            return true;
        }

        return !$this->socket->isTls() && \feof($this->stream);
    }
}
