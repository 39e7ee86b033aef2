<?php

declare(strict_types=1);

namespace Chat;

use Petrel\Coroutine\Channel;
use Petrel\Coroutine\ChannelClosedException;
use Petrel\WebSocket\CloseCode;
use Petrel\WebSocket\WebSocket;
use Petrel\WebSocket\WebSocketException;

use function Petrel\go;

/**
 * One connected client: its WebSocket and a bounded queue of messages to send it, emptied
 * by a sender coroutine of its own. So a client that reads slowly (its socket's send
 * buffer full) holds up only its own sender, never the broadcast to the others. A client
 * whose queue is full when a message comes is dropped: closed with 1008 "too slow", in a
 * coroutine of its own (closing waits for the peer); it may reconnect.
 */
final class Member
{
    private readonly Channel $queue;

    private bool $dropped = false;

    public function __construct(public readonly WebSocket $ws, private readonly int $queueSize)
    {
        $this->queue = new Channel($queueSize);
        go($this->sendQueued(...));
    }

    /** Queues $json for this client without ever waiting; false when the client was dropped. */
    public function offer(string $json): bool
    {
        if ($this->dropped || $this->queue->isClosed()) {
            return false;
        }
        if ($this->queue->count() >= $this->queueSize) {
            $this->dropped = true;
            $this->queue->close();
            go(function (): void {
                $this->ws->close(CloseCode::POLICY_VIOLATION, "too slow: {$this->queueSize} messages were waiting");
            });

            return false;
        }
        $this->queue->push($json); // there is room: never suspends

        return true;
    }

    /** Stops the sender once the queued messages went out. */
    public function leave(): void
    {
        $this->queue->close();
    }

    public function wasDropped(): bool
    {
        return $this->dropped;
    }

    private function sendQueued(): void
    {
        try {
            while (\is_string($json = $this->queue->pop())) {
                $this->ws->sendText($json);
            }
        } catch (ChannelClosedException | WebSocketException) {
            // left, dropped, or gone
        }
    }
}
