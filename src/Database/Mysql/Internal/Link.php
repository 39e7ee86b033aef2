<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\ConnectionException;
use Petrel\Database\Mysql\ProtocolException;
use Petrel\Socket\SocketException;
use Petrel\Socket\StreamSocket;

/**
 * The byte pipe of one MySQL connection: a Petrel socket and the PacketFramer that cuts what
 * it receives into packets. Every command goes out in one write (preceded by any queued
 * commands that have no reply, like COM_STMT_CLOSE); replies are read in large chunks and
 * framed in place, so decoders take packets straight from the read buffer.
 *
 * @internal
 */
final class Link
{
    private const READ_SIZE = 65536;
    /**
     * A command this big that cannot be written was most likely refused for it: a server
     * closes the connection on a packet above its max_allowed_packet (1 MiB to 1 GiB;
     * 16 MiB by default on MariaDB, 64 MiB on MySQL 8), and when it does so while the
     * command is still going out, the write fails ("Connection reset by peer") before
     * its error packet can be read.
     */
    private const LARGE_COMMAND = 1 << 20;

    public readonly PacketFramer $framer;
    /** Framed commands without a reply, sent in front of the next command. */
    private string $queued = '';

    public function __construct(public readonly StreamSocket $socket, public readonly string $where)
    {
        $this->framer = new PacketFramer();
    }

    /**
     * Starts a command: its payload goes out with sequence id 0, replies follow from 1. The
     * socket's next read waits for the reply rather than trying a read that finds nothing.
     */
    public function send(#[\SensitiveParameter] string $payload): void
    {
        $this->framer->resetSequence();
        $bytes = $this->framer->packet($payload);
        if ($this->queued !== '') {
            $bytes = $this->queued . $bytes;
            $this->queued = '';
        }
        try {
            $this->socket->write($bytes);
        } catch (SocketException $e) {
            throw \strlen($bytes) < self::LARGE_COMMAND ? $e : new SocketException(\sprintf(
                '%s, sending a command of %d bytes: the server closes the connection on one above its '
                . 'max_allowed_packet; raise that setting on the server, or send less at once',
                $e->getMessage(),
                \strlen($bytes),
            ), 0, $e);
        }
        $this->socket->expectReply();
    }

    /** Writes the next packet of the current exchange (authentication, local-infile refusal). */
    public function reply(string $payload): void
    {
        $this->socket->write($this->framer->packet($payload));
    }

    /** Queues a command the server does not answer, to go out with the next send(). */
    public function queue(string $payload): void
    {
        $this->queued .= PacketFramer::frame($payload, 0);
    }

    /** The next packet's payload, waiting for bytes as needed. */
    public function next(): string
    {
        while (($payload = $this->framer->next()) === null) {
            $this->fill();
        }

        return $payload;
    }

    /**
     * The server's first packet. Checked before waiting for all of it: a server of another
     * protocol that speaks first (SSH, SMTP, a proxy's error page) would otherwise announce
     * a "length" of megabytes and leave us waiting for it.
     *
     * @throws ProtocolException
     */
    public function greeting(): string
    {
        $this->fill();
        $payload = $this->framer->next();
        if ($payload !== null) {
            return $payload;
        }
        $head = $this->framer->head(4);
        if (\strlen($head) === 4 && ($head[3] !== "\0" || (\ord($head[0]) | \ord($head[1]) << 8 | \ord($head[2]) << 16) > 16384)) {
            throw new ProtocolException(\sprintf('the first bytes are no MySQL greeting: "%s"', \addcslashes($this->framer->head(24), "\0..\37\177..\377")));
        }

        return $this->next();
    }

    /**
     * Waits for more bytes and hands them to the framer.
     *
     * @throws ConnectionException at end of stream
     */
    public function fill(): void
    {
        $data = $this->socket->read(self::READ_SIZE);
        if ($data === null) {
            throw new ConnectionException("Lost connection to MySQL at {$this->where}: the server closed the connection");
        }
        $this->framer->feed($data);
    }

    /** Nothing unread, peer still there (a non-blocking peek, no round trip). */
    public function isIdle(): bool
    {
        return $this->framer->bufferedLength() === 0 && $this->socket->isAlive();
    }
}
