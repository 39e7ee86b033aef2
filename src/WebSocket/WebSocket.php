<?php

declare(strict_types=1);

namespace Petrel\WebSocket;

use Petrel\Coroutine\TimeoutException;
use Petrel\Socket\Socket;
use Petrel\Socket\SocketException;
use Petrel\WebSocket\Internal\CloseState;
use Petrel\WebSocket\Internal\Deflater;
use Petrel\WebSocket\Internal\FrameEncoder;
use Petrel\WebSocket\Internal\FrameParser;
use Petrel\WebSocket\Internal\Opcode;
use Petrel\WebSocket\Internal\PerMessageDeflate;
use Petrel\WebSocket\Internal\Receiver;
use Petrel\WebSocket\Internal\Utf8Validator;

/**
 * One WebSocket connection (RFC 6455), either side, for use from coroutines.
 *
 * A coroutine of its own (Internal\Receiver) reads the socket for the connection's whole
 * life: it answers pings, handles the close handshake, pings an idle peer, and queues
 * whole messages for receive() (a few at most: a reader who does not keep up stops the
 * reading, which is the backpressure TCP passes on to the peer; the peer's pings and close
 * frame, read in order with its messages, then wait too: a handler that only sends takes
 * the messages in a coroutine of its own, go(fn () => iterator_count($ws))). A peer that
 * stops reading while we send is dropped (1006) once a control frame has waited the close
 * timeout behind the data. A peer that breaks the
 * protocol gets a close frame with the right code (1002, 1007, 1009) and the connection
 * ends; nothing is thrown at the application: receive() returns null and
 * getCloseCode()/getCloseReason() say why. send() writes each message whole, in one
 * socket write, so messages from several coroutines never interleave; it waits while the
 * socket's send buffer is full. A deadline or cancellation that ends that wait after part
 * of the message went out closes the connection (1006): nothing may follow a cut frame.
 * So does one that ends it before, for a compressed message that a later compressed one,
 * already waiting behind it, refers back to (context takeover).
 *
 * @implements \IteratorAggregate<int, Message>
 */
final class WebSocket implements \IteratorAggregate
{
    private readonly FrameEncoder $encoder;
    private readonly ?Deflater $deflater;
    private readonly CloseState $state;
    private readonly Receiver $receiver;
    /** Compressed messages so far: which one the deflater's context saw last. */
    private int $compressedCount = 0;

    /**
     * @internal made by WebSocketServer and WebSocketClient after the opening handshake
     * @param string $buffered bytes already read from the socket past the handshake
     */
    public function __construct(
        private readonly Socket $socket,
        bool $server,
        private readonly WebSocketOptions $options,
        private readonly ?PerMessageDeflate $deflate = null,
        private readonly ?string $subprotocol = null,
        string $buffered = '',
    ) {
        $this->encoder = new FrameEncoder(!$server);
        $this->deflater = $deflate?->deflater($server);
        $this->state = new CloseState();
        $parser = new FrameParser($server, $options->maxMessageSize, $options->maxFrameSize, $deflate?->inflater($server));
        $this->receiver = new Receiver($socket, $server, $options, $parser, $this->encoder, $this->state, $buffered);
    }

    /**
     * The next whole message; null once the connection is closing or closed and every
     * message received before was returned.
     *
     * @throws TimeoutException if $timeout seconds pass without a message
     */
    public function receive(?float $timeout = null): ?Message
    {
        return $this->receiver->receive($timeout);
    }

    /** @return \Generator<int, Message> the messages until the connection closes */
    public function getIterator(): \Generator
    {
        while (($message = $this->receive()) !== null) {
            yield $message;
        }
    }

    /**
     * Sends a text message, or a Message as it is (text or binary: an echo is send($message)).
     *
     * @throws ClosedException when the connection is closing or closed
     * @throws WebSocketError when a text message is not valid UTF-8
     */
    public function send(string|Message $message): void
    {
        if ($message instanceof Message && $message->binary) {
            $this->sendBinary($message->data);
        } else {
            $this->sendText((string) $message);
        }
    }

    /** @throws ClosedException|WebSocketError */
    public function sendText(string $text): void
    {
        if (!Utf8Validator::isValid($text)) {
            throw new WebSocketError('A text message must be valid UTF-8; send bytes with sendBinary()');
        }
        $this->sendMessage(Opcode::TEXT, $text);
    }

    /** @throws ClosedException */
    public function sendBinary(string $data): void
    {
        $this->sendMessage(Opcode::BINARY, $data);
    }

    /**
     * Sends a ping (the pong is handled, not returned).
     *
     * @throws ClosedException|WebSocketError
     */
    public function ping(string $payload = ''): void
    {
        if (\strlen($payload) > 125) {
            throw new WebSocketError('A ping payload is at most 125 bytes');
        }
        $this->write($this->encoder->frame(Opcode::PING, $payload));
    }

    /**
     * Starts the close handshake (if nobody has yet) and waits until it is over: the peer's
     * close frame came, or the close timeout passed; then the socket is closed. Messages
     * that arrived before remain for receive(); later ones are dropped. Never throws for a
     * connection that is already closed.
     *
     * @throws WebSocketError for a code that may not be sent or a reason over 123 bytes
     */
    public function close(int $code = CloseCode::NORMAL, string $reason = ''): void
    {
        if (!CloseCode::isValid($code)) {
            throw new WebSocketError("Close code {$code} may not be sent");
        }
        if (\strlen($reason) > 123 || !Utf8Validator::isValid($reason)) {
            throw new WebSocketError('A close reason is valid UTF-8 of at most 123 bytes');
        }
        if (!$this->state->isClosed()) {
            $this->state->record($code, $reason, false);
            $this->state->closeSent = true;
            $this->receiver->writeControl(Opcode::CLOSE, CloseState::payload($code, $reason));
        }
        $this->receiver->stopDelivering();
        $this->receiver->finish($this->options->closeTimeout);
    }

    /** True once no more messages can be sent (a close frame went out, or the socket closed). */
    public function isClosed(): bool
    {
        return $this->state->isClosed();
    }

    /**
     * Why the connection closed: the code of the close frame that started the closing
     * (ours or the peer's), 1005 if it had none, 1006 if the connection dropped without
     * one; the code we failed it with for a protocol violation. null while open.
     */
    public function getCloseCode(): ?int
    {
        return $this->state->code;
    }

    public function getCloseReason(): string
    {
        return $this->state->reason;
    }

    /** Whether the peer started the closing (or dropped the connection). */
    public function isClosedByPeer(): bool
    {
        return $this->state->byPeer;
    }

    /** Whether both close frames were exchanged (a close handshake, not a drop or a failure). */
    public function wasClean(): bool
    {
        return $this->state->closeSent && $this->state->closeReceived;
    }

    public function getSubprotocol(): ?string
    {
        return $this->subprotocol;
    }

    /** Whether permessage-deflate was negotiated. */
    public function isCompressed(): bool
    {
        return $this->deflate !== null;
    }

    public function getRemoteAddress(): string
    {
        return $this->socket->getRemoteAddress();
    }

    private function sendMessage(int $opcode, string $data): void
    {
        if ($this->deflater === null || \strlen($data) < $this->options->compressionThreshold) {
            $this->write($this->encodeMessage($opcode, $data, false));

            return;
        }
        $this->assertOpen(); // before the deflater's context takes the message in
        $frames = $this->encodeMessage($opcode, $this->deflater->compress($data), true);
        $sequence = ++$this->compressedCount;
        try {
            $this->write($frames);
        } catch (\Throwable $e) {
            if (!$this->socket->isClosed()) {
                $this->forgetUnsent($sequence);
            }
            throw $e;
        }
    }

    /**
     * A compressed message that never went out (a deadline or cancellation ended its wait
     * for the socket before any byte of it was written) is still in the deflater's context,
     * which the peer's inflater never saw: a later message referring back to it would
     * inflate to garbage. If nothing was compressed after it, forgetting the context
     * suffices (a new deflate stream refers back only into itself); otherwise those later
     * messages, queued already, are broken, and the connection is dropped (1006).
     */
    private function forgetUnsent(int $sequence): void
    {
        \assert($this->deflater !== null);
        if ($sequence === $this->compressedCount) {
            $this->deflater->reset();
        } elseif ($this->deflater->takesOverContext()) {
            $this->state->record(CloseCode::ABNORMAL, 'a compressed message that later ones refer to was not sent', false);
            $this->socket->close();
        }
    }

    private function encodeMessage(int $opcode, string $data, bool $compressed): string
    {
        $frameSize = $this->options->outgoingFrameSize;
        if ($frameSize === null || \strlen($data) <= $frameSize) {
            return $this->encoder->frame($opcode, $data, true, $compressed);
        }
        $chunks = \str_split($data, \max(1, $frameSize));
        $last = \count($chunks) - 1;
        $frames = '';
        foreach ($chunks as $i => $chunk) {
            $frames .= $this->encoder->frame($i === 0 ? $opcode : Opcode::CONTINUATION, $chunk, $i === $last, $i === 0 && $compressed);
        }

        return $frames;
    }

    /** @throws ClosedException */
    private function assertOpen(): void
    {
        if ($this->state->isClosed()) {
            throw new ClosedException(\sprintf('The WebSocket is closed (%d %s)', $this->state->code ?? CloseCode::ABNORMAL, $this->state->reason));
        }
    }

    /** One socket write per message: the socket queues concurrent writers whole, in order. */
    private function write(string $frames): void
    {
        $this->assertOpen();
        try {
            $this->socket->write($frames);
        } catch (SocketException $e) {
            $this->state->record(CloseCode::ABNORMAL, $e->getMessage(), true);
            $this->socket->close();
            throw new ClosedException('The WebSocket connection was lost: ' . $e->getMessage(), 0, $e);
        } catch (\Throwable $e) {
            if ($this->socket->isClosed()) {
                // A deadline or cancellation cut the message after part of it went out: the
                // socket closed itself, as nothing may follow a cut frame (Socket::write()).
                $this->state->record(CloseCode::ABNORMAL, 'a message was cut short by ' . $e::class . ' while it was being sent', false);
            }
            throw $e;
        }
    }
}
