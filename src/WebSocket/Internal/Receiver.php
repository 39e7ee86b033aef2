<?php

declare(strict_types=1);

namespace Petrel\WebSocket\Internal;

use Petrel\Coroutine\Channel;
use Petrel\Coroutine\ChannelClosedException;
use Petrel\Coroutine\Coroutine;
use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\TimeoutException;
use Petrel\Socket\Socket;
use Petrel\Socket\SocketException;
use Petrel\WebSocket\CloseCode;
use Petrel\WebSocket\Message;
use Petrel\WebSocket\WebSocketOptions;

/**
 * The reading side of one WebSocket connection: a coroutine of its own reads the socket
 * for the connection's whole life. It answers pings, handles the close handshake, pings
 * an idle peer, and queues whole messages for receive() (a few at most: a reader who does
 * not keep up stops the reading, which is the backpressure TCP passes on to the peer).
 * A peer that breaks the protocol gets a close frame with the right code (1002, 1007,
 * 1009) and the connection ends; nothing is thrown: receive() returns null and the
 * CloseState says why. When the coroutine ends, the socket is closed.
 */
final class Receiver
{
    private const QUEUED_MESSAGES = 4;

    private readonly Channel $messages;
    private readonly Coroutine $coroutine;
    private bool $awaitingPong = false;

    /** @param string $buffered bytes already read from the socket past the handshake */
    public function __construct(
        private readonly Socket $socket,
        private readonly bool $server,
        private readonly WebSocketOptions $options,
        private readonly FrameParser $parser,
        private readonly FrameEncoder $encoder,
        private readonly CloseState $state,
        string $buffered,
    ) {
        $this->messages = new Channel(self::QUEUED_MESSAGES);
        $this->coroutine = Scheduler::get()->spawn($this->run(...), [$buffered]);
    }

    /**
     * The next whole message; null once no more will come and the queued ones were taken.
     *
     * @throws TimeoutException
     */
    public function receive(?float $timeout): ?Message
    {
        try {
            $message = $this->messages->pop($timeout);
        } catch (ChannelClosedException) {
            return null;
        }
        \assert($message instanceof Message);

        return $message;
    }

    /** Messages that arrive from now on are dropped; the queued ones remain for receive(). */
    public function stopDelivering(): void
    {
        $this->messages->close();
    }

    /**
     * Waits until the reader ended (the close handshake is over or the connection dropped),
     * at most $timeout seconds; then closes the socket under it and waits for it to end.
     */
    public function finish(float $timeout): void
    {
        try {
            $this->coroutine->join($timeout);
        } catch (TimeoutException) {
            $this->socket->close(); // the reader ends on it
            $this->coroutine->join();
        }
    }

    /**
     * A control frame: a failed write only means the reader will see EOF. It waits at most
     * the close timeout: a peer that stopped reading has its send buffer full behind our
     * messages, and the ping for its idleness, the pong, our close frame would otherwise wait
     * with it forever (and the idle and close timeouts never start). Then the connection is
     * dropped (1006): the reader ends on the closed socket.
     */
    public function writeControl(int $opcode, string $payload): void
    {
        $frame = $this->encoder->frame($opcode, $payload);
        try {
            Scheduler::get()->timeout($this->options->closeTimeout, fn () => $this->socket->write($frame));
        } catch (SocketException) {
        } catch (TimeoutException) {
            $this->state->record(CloseCode::ABNORMAL, \sprintf('The peer stopped reading: a control frame could not be sent within %s s', $this->options->closeTimeout), true);
            $this->socket->close();
        }
    }

    private function run(string $buffered): void
    {
        try {
            $this->handleBytes($buffered);
            while (!$this->state->closeReceived) {
                $data = $this->readOrPing();
                if ($data === null) {
                    $this->state->record(CloseCode::ABNORMAL, 'The connection closed without a close frame', true);
                    break;
                }
                $this->handleBytes($data);
            }
            if ($this->state->closeReceived && !$this->server) {
                $this->drain(); // RFC 6455 §7.1.1: the server closes the TCP connection first
            }
        } catch (ProtocolException $e) {
            $this->fail($e);
        } catch (SocketException $e) {
            $this->state->record(CloseCode::ABNORMAL, $e->getMessage(), true);
        } finally {
            $this->state->finished = true;
            $this->state->record(CloseCode::ABNORMAL, 'The connection closed', true);
            $this->messages->close();
            $this->socket->close();
        }
    }

    /**
     * Fails the connection for a protocol violation: our close frame goes out last. Like
     * any control frame it waits at most the close timeout (behind our messages, for a
     * peer that stopped reading): then the connection is dropped, without the drain.
     */
    private function fail(ProtocolException $e): void
    {
        $this->state->record($e->closeCode, $e->getMessage(), false);
        $this->messages->close(); // receive() returns null now, not after the drain
        if ($this->state->closeSent) {
            return;
        }
        $this->state->closeSent = true;
        $frame = $this->encoder->frame(Opcode::CLOSE, CloseState::payload($e->closeCode, $e->getMessage()));
        try {
            Scheduler::get()->timeout($this->options->closeTimeout, fn () => $this->socket->end($frame));
        } catch (SocketException) {
        } catch (TimeoutException) {
            $this->socket->close();

            return;
        }
        $this->drain();
    }

    /**
     * The next bytes, null at EOF, '' when the idle timeout passed (a ping went out).
     *
     * @throws ProtocolException 1001 when an idle peer did not answer a ping in time
     */
    private function readOrPing(): ?string
    {
        $idle = $this->options->idleTimeout;
        if ($idle === null) {
            return $this->socket->read();
        }
        try {
            $data = Scheduler::get()->timeout($idle, $this->socket->read(...));
        } catch (TimeoutException) {
            if ($this->awaitingPong || $this->state->closeSent) {
                throw new ProtocolException(CloseCode::GOING_AWAY, \sprintf('No answer from the peer within %s s', $idle));
            }
            $this->awaitingPong = true;
            $this->writeControl(Opcode::PING, '');

            return '';
        }
        $this->awaitingPong = false;

        return $data;
    }

    /** @throws ProtocolException */
    private function handleBytes(string $bytes): void
    {
        $this->parser->feed($bytes);
        while (!$this->state->closeReceived && ($event = $this->parser->next()) !== null) {
            if ($event instanceof Message) {
                $this->deliver($event);
            } else {
                $this->handleControl($event);
            }
        }
    }

    /**
     * Queues a message for receive(); while the queue is full nothing more is read (the
     * backpressure). The wait still pings the peer every idle timeout: a peer that sends
     * but stops reading leaves our sender waiting in send() behind a full send buffer and
     * this reader waiting here for it, and neither wait would ever end. A ping that cannot
     * be written within the close timeout drops the connection (writeControl()); a peer
     * that reads takes it, and the wait goes on.
     *
     * @throws SocketException when that drop happened
     */
    private function deliver(Message $message): void
    {
        while (!$this->state->closeSent) { // once we are closing, nobody will read it
            try {
                $this->messages->push($message, $this->options->idleTimeout);

                return;
            } catch (ChannelClosedException) {
                return; // close() was called meanwhile
            } catch (TimeoutException) {
                if ($this->state->isClosed()) {
                    return; // close() is sending its close frame: no ping may follow it
                }
                $this->writeControl(Opcode::PING, '');
                if ($this->socket->isClosed()) {
                    throw new SocketException('The connection was dropped while a message waited to be received');
                }
            }
        }
    }

    private function handleControl(ControlFrame $frame): void
    {
        if ($frame->opcode === Opcode::PING) {
            if (!$this->state->closeSent) {
                $this->writeControl(Opcode::PONG, $frame->payload);
            }
        } elseif ($frame->opcode === Opcode::CLOSE) {
            $this->state->closeReceived = true;
            if (!$this->state->closeSent) {
                $this->state->record($frame->closeCode, $frame->closeReason, true);
                $this->state->closeSent = true;
                // Echo the code (RFC 6455 §5.5.1); none for a close frame that had none.
                $this->writeControl(Opcode::CLOSE, FrameEncoder::closePayload($frame->closeCode, ''));
            }
            $this->messages->close();
        }
        // An unsolicited pong is ignored; any bytes already ended the wait for one.
    }

    /**
     * Reads and drops what the peer still sends until it closes (bounded by the close
     * timeout), so that closing does not reset the connection under our last frame.
     */
    private function drain(): void
    {
        try {
            Scheduler::get()->timeout($this->options->closeTimeout, function (): void {
                while ($this->socket->read() !== null) {
                }
            });
        } catch (TimeoutException | SocketException) {
        }
    }
}
