<?php

declare(strict_types=1);

namespace Petrel\Redis\Internal;

use Petrel\Redis\PushMessage;
use Petrel\Redis\RedisConnectionException;
use Petrel\Redis\RedisProtocolException;
use Petrel\Socket\SocketException;
use Petrel\Socket\StreamSocket;
use Throwable;

/**
 * A socket speaking RESP: writes encoded commands, reads decoded replies.
 *
 * It closes itself on the first failure of any kind in the middle of an exchange (lost
 * connection, invalid RESP, but also a deadline or a cancellation): from then on the
 * replies could no longer be matched to their commands. Socket failures become
 * {@see RedisConnectionException}, invalid RESP a {@see RedisProtocolException} naming the
 * server; anything else (TimeoutException, CancelledException) is rethrown as is.
 *
 * @internal
 */
final class RespStream
{
    private const READ_SIZE = 65536;
    /**
     * The first read for a reply, while replies fit in it: the largest whose string PHP
     * allocates from its small-size bins (3,072 bytes with the string's header). A 64 KiB
     * read's string takes pages of its own, and shrinking it to the few bytes received
     * costs some 400 instructions more per command. A reply that fills it switches the
     * connection to READ_SIZE for good: values that large would pay a second read each.
     */
    private const SMALL_READ_SIZE = 3000;

    private readonly RespParser $parser;
    /** Why the stream is closed; null while it is open. */
    private ?string $closedBecause = null;
    private bool $closedByUser = false;
    private int $firstReadSize = self::SMALL_READ_SIZE;

    public function __construct(private readonly StreamSocket $socket, public readonly string $endpoint)
    {
        $this->parser = new RespParser();
    }

    /**
     * Writes one command and returns its reply (RESP3 push data arriving meanwhile is dropped).
     *
     * @throws RedisConnectionException closedException() when the stream is closed already
     */
    public function request(string $payload): mixed
    {
        if ($this->closedBecause !== null) {
            throw $this->closedException();
        }
        try {
            // Read at once, without asking the parser first: what it may hold (push data) came
            // before the reply, which cannot be in yet. Nearly always the reply comes whole
            // in one read, and take() decodes it at once.
            $data = $this->socket->exchange($payload, $this->firstReadSize)
                ?? throw new RedisConnectionException("Redis at {$this->endpoint} closed the connection");
            if (\strlen($data) === $this->firstReadSize) {
                $this->firstReadSize = self::READ_SIZE;
            }
            $reply = $this->parser->take($data);
            if ($reply !== false) {
                return $reply;
            }
            do {
                while (!$this->parser->hasNext()) {
                    $this->receive();
                }
                $reply = $this->parser->next();
            } while ($reply instanceof PushMessage);

            return $reply;
        } catch (Throwable $e) {
            throw $this->fail($e);
        }
    }

    /**
     * Writes several commands at once and returns their $count replies in order.
     *
     * @return list<mixed>
     */
    public function requestMany(#[\SensitiveParameter] string $payload, int $count): array
    {
        $replies = [];
        try {
            $this->socket->write($payload);
            $this->socket->expectReply();
            while ($count > 0) {
                while (!$this->parser->hasNext()) {
                    $this->receive();
                }
                $reply = $this->parser->next();
                if (!$reply instanceof PushMessage) {
                    $replies[] = $reply;
                    $count--;
                }
            }

            return $replies;
        } catch (Throwable $e) {
            throw $this->fail($e);
        }
    }

    /** Writes without reading (subscriber mode). */
    public function send(#[\SensitiveParameter] string $payload): void
    {
        try {
            $this->socket->write($payload);
        } catch (Throwable $e) {
            throw $this->fail($e);
        }
    }

    /** The next reply or push message, whatever it is (subscriber mode). */
    public function readReply(): mixed
    {
        try {
            while (!$this->parser->hasNext()) {
                $this->receive();
            }

            return $this->parser->next();
        } catch (Throwable $e) {
            throw $this->fail($e);
        }
    }

    /** Closes on request of the connection's user; a reader waiting gets a RedisConnectionException. */
    public function close(string $because = 'it was closed with close()'): void
    {
        if ($this->closedBecause === null) {
            $this->closedBecause = $because;
            $this->closedByUser = true;
        }
        $this->socket->close();
    }

    public function isOpen(): bool
    {
        return $this->closedBecause === null;
    }

    /**
     * Open, and the server has not closed it meanwhile (a restart) nor sent anything
     * unasked. A non-blocking peek; for pools checking an idle connection.
     */
    public function isAlive(): bool
    {
        return $this->closedBecause === null && $this->socket->isAlive();
    }

    /** Whether close() closed it (rather than a failure). */
    public function wasClosedByUser(): bool
    {
        return $this->closedByUser;
    }

    /** The exception for an attempt to use the stream once closed. */
    public function closedException(): RedisConnectionException
    {
        return new RedisConnectionException(
            "The connection to Redis at {$this->endpoint} is closed: {$this->closedBecause}",
        );
    }

    private function receive(): void
    {
        $data = $this->socket->read(self::READ_SIZE);
        if ($data === null) {
            throw new RedisConnectionException("Redis at {$this->endpoint} closed the connection");
        }
        $this->parser->feed($data);
    }

    /** Closes the stream after a failure mid-exchange; returns what to throw. */
    private function fail(Throwable $e): Throwable
    {
        $wasOpen = $this->closedBecause === null;
        $error = match (true) {
            $e instanceof RedisConnectionException => $e,
            $e instanceof SocketException && !$wasOpen => new RedisConnectionException(
                "The connection to Redis at {$this->endpoint} was closed while in use: {$this->closedBecause}",
                0,
                $e,
            ),
            $e instanceof SocketException => new RedisConnectionException(
                "Lost the connection to Redis at {$this->endpoint}: {$e->getMessage()}",
                0,
                $e,
            ),
            $e instanceof RedisProtocolException => new RedisProtocolException(
                "Redis at {$this->endpoint} sent an invalid reply: {$e->getMessage()}",
                0,
                $e,
            ),
            default => $e,
        };
        if ($wasOpen) {
            $this->closedBecause = match (true) {
                $error === $e && !$e instanceof RedisConnectionException => \sprintf(
                    '%s interrupted an exchange (%s), so replies could no longer be matched to commands',
                    $e::class,
                    $e->getMessage(),
                ),
                default => $error->getMessage(),
            };
        }
        $this->socket->close();

        return $error;
    }
}
