<?php

declare(strict_types=1);

namespace Petrel\WebSocket\Internal;

use Petrel\WebSocket\CloseCode;
use Petrel\WebSocket\Message;

/**
 * Incremental WebSocket frame parser (RFC 6455 §5, RFC 7692 §6): bytes in, whole messages
 * and control frames out, no I/O.
 *
 * feed() appends bytes; next() returns the next Message (fragments reassembled, inflated,
 * UTF-8 checked), ControlFrame (ping, pong, close) or null when more bytes are needed. A
 * protocol violation throws ProtocolException with the close code to fail the connection
 * with; next() keeps throwing it. Every check happens as early as the bytes allow: the
 * first two bytes of a header are judged before the rest arrives, a too-big length before
 * any of its payload is kept, and a data frame's payload is unmasked, inflated and UTF-8
 * checked piece by piece as it comes, so a bad text message fails at its first invalid
 * byte and memory never grows past the limits.
 *
 * Lengths need not use the minimal encoding: RFC 6455 §5.2 makes that the sender's duty
 * and a longer encoding is unambiguous, so it is accepted (as browsers and `ws` do).
 */
final class FrameParser
{
    private string $buffer = '';
    private int $offset = 0;
    private bool $inPayload = false;
    private ?ProtocolException $failure = null;

    // The frame being read.
    private bool $fin = false;
    private int $opcode = 0;
    private string $maskKey = '';
    private int $length = 0;
    private int $read = 0;

    // The data message being assembled (0: none open).
    private int $messageOpcode = 0;
    private bool $compressed = false;
    private string $message = '';
    private ?Utf8Validator $utf8 = null;

    /**
     * @param bool $server the frames come from a client: they must be masked (and the
     *        other way round)
     */
    public function __construct(
        private readonly bool $server,
        private readonly int $maxMessageSize,
        private readonly int $maxFrameSize,
        private readonly ?Inflater $inflater = null,
    ) {
    }

    public function feed(string $bytes): void
    {
        if ($this->offset > 0) {
            $this->buffer = \substr($this->buffer, $this->offset);
            $this->offset = 0;
        }
        $this->buffer .= $bytes;
    }

    /** @throws ProtocolException */
    public function next(): Message|ControlFrame|null
    {
        if ($this->failure !== null) {
            throw $this->failure;
        }
        try {
            while (true) {
                if (!$this->inPayload && !$this->readHeader()) {
                    return null;
                }
                if (Opcode::isControl($this->opcode)) {
                    return $this->readControlFrame();
                }
                if (!$this->readDataPayload()) {
                    return null;
                }
                if ($this->fin) {
                    return $this->finishMessage();
                }
            }
        } catch (ProtocolException $failure) {
            $this->failure = $failure;
            $this->buffer = '';
            $this->offset = 0;
            throw $failure;
        }
    }

    /** True while a fragmented message is open or a frame is half read. */
    public function isMidMessage(): bool
    {
        return $this->messageOpcode !== 0 || $this->inPayload;
    }

    /** @throws ProtocolException */
    private function readHeader(): bool
    {
        $available = \strlen($this->buffer) - $this->offset;
        if ($available < 2) {
            return false;
        }
        $first = \ord($this->buffer[$this->offset]);
        $second = \ord($this->buffer[$this->offset + 1]);
        $this->checkHeader($first, $second);
        $length = $second & 0x7F;
        $masked = ($second & 0x80) !== 0;
        $size = 2 + ($length === 126 ? 2 : ($length === 127 ? 8 : 0)) + ($masked ? 4 : 0);
        if ($available < $size) {
            return false;
        }
        $at = $this->offset + 2;
        if ($length === 126) {
            $length = self::bigEndian($this->buffer, $at, 2);
            $at += 2;
        } elseif ($length === 127) {
            if ((\ord($this->buffer[$at]) & 0x80) !== 0) {
                throw new ProtocolException(CloseCode::PROTOCOL_ERROR, 'The most significant bit of a 64-bit length must be 0');
            }
            $length = self::bigEndian($this->buffer, $at, 8);
            $at += 8;
        }
        $this->maskKey = $masked ? \substr($this->buffer, $at, 4) : '';
        $this->offset += $size;
        $this->startFrame($first, $length);

        return true;
    }

    /** Judges the first two bytes of a header (RFC 6455 §5.2, §5.4, §5.5, RFC 7692 §6). */
    private function checkHeader(int $first, int $second): void
    {
        $opcode = $first & 0x0F;
        $rsv1 = ($first & 0x40) !== 0;
        $fail = static fn (string $reason) => new ProtocolException(CloseCode::PROTOCOL_ERROR, $reason);
        if (($first & 0x30) !== 0) {
            throw $fail('Reserved bits RSV2/RSV3 set without a negotiated extension');
        }
        if (!Opcode::isKnown($opcode)) {
            throw $fail(\sprintf('Unknown opcode 0x%X', $opcode));
        }
        if (Opcode::isControl($opcode)) {
            if (($first & 0x80) === 0) {
                throw $fail('Fragmented control frame');
            }
            if (($second & 0x7F) > 125) {
                throw $fail('Control frame payload longer than 125 bytes');
            }
        } elseif ($opcode === Opcode::CONTINUATION && $this->messageOpcode === 0) {
            throw $fail('Continuation frame without a message to continue');
        } elseif ($opcode !== Opcode::CONTINUATION && $this->messageOpcode !== 0) {
            throw $fail('New data frame while a fragmented message is still open');
        }
        if ($rsv1 && ($this->inflater === null || $opcode === Opcode::CONTINUATION || Opcode::isControl($opcode))) {
            throw $fail($this->inflater === null
                ? 'Reserved bit RSV1 set without a negotiated extension'
                : 'RSV1 is only allowed on the first frame of a data message');
        }
        $masked = ($second & 0x80) !== 0;
        if ($masked !== $this->server) {
            throw $fail($this->server ? 'Unmasked frame from a client' : 'Masked frame from a server');
        }
    }

    private function startFrame(int $first, int $length): void
    {
        $this->fin = ($first & 0x80) !== 0;
        $this->opcode = $first & 0x0F;
        $this->length = $length;
        $this->read = 0;
        $this->inPayload = true;
        if (Opcode::isControl($this->opcode)) {
            return;
        }
        if ($length > $this->maxFrameSize) {
            throw new ProtocolException(CloseCode::MESSAGE_TOO_BIG, "Frame of {$length} bytes exceeds the limit of {$this->maxFrameSize}");
        }
        if ($this->opcode !== Opcode::CONTINUATION) {
            $this->messageOpcode = $this->opcode;
            $this->compressed = ($first & 0x40) !== 0;
            $this->message = '';
            $this->utf8 = $this->opcode === Opcode::TEXT ? new Utf8Validator() : null;
        }
        if (!$this->compressed && \strlen($this->message) + $length > $this->maxMessageSize) {
            throw new ProtocolException(CloseCode::MESSAGE_TOO_BIG, "Message exceeds the limit of {$this->maxMessageSize} bytes");
        }
    }

    /** Takes what has arrived of a data frame's payload; true once the frame is complete. */
    private function readDataPayload(): bool
    {
        $take = \min($this->length - $this->read, \strlen($this->buffer) - $this->offset);
        if ($take > 0) {
            $chunk = \substr($this->buffer, $this->offset, $take);
            $this->offset += $take;
            if ($this->maskKey !== '') {
                $chunk = FrameEncoder::applyMask($chunk, $this->maskKey, $this->read);
            }
            $this->read += $take;
            if ($this->compressed) {
                \assert($this->inflater !== null);
                $chunk = $this->inflater->add($chunk, $this->maxMessageSize - \strlen($this->message));
            }
            $this->append($chunk);
        }
        if ($this->read < $this->length) {
            return false;
        }
        $this->inPayload = false;

        return true;
    }

    private function append(string $data): void
    {
        if ($this->utf8 !== null && !$this->utf8->push($data)) {
            throw new ProtocolException(CloseCode::INVALID_PAYLOAD, 'Invalid UTF-8 in a text message');
        }
        $this->message .= $data;
    }

    private function finishMessage(): Message
    {
        if ($this->compressed) {
            \assert($this->inflater !== null);
            $this->append($this->inflater->finish($this->maxMessageSize - \strlen($this->message)));
        }
        if ($this->utf8 !== null && !$this->utf8->finish()) {
            throw new ProtocolException(CloseCode::INVALID_PAYLOAD, 'Text message ends inside a UTF-8 sequence');
        }
        $message = new Message($this->message, $this->messageOpcode === Opcode::BINARY);
        $this->messageOpcode = 0;
        $this->message = '';
        $this->utf8 = null;
        $this->compressed = false;

        return $message;
    }

    private function readControlFrame(): ?ControlFrame
    {
        if (\strlen($this->buffer) - $this->offset < $this->length) {
            return null;
        }
        $payload = \substr($this->buffer, $this->offset, $this->length);
        $this->offset += $this->length;
        $this->inPayload = false;
        if ($this->maskKey !== '') {
            $payload = FrameEncoder::applyMask($payload, $this->maskKey, 0);
        }
        if ($this->opcode !== Opcode::CLOSE) {
            return new ControlFrame($this->opcode, $payload);
        }
        if ($payload === '') {
            return new ControlFrame(Opcode::CLOSE, '', CloseCode::NO_STATUS);
        }
        if (\strlen($payload) === 1) {
            throw new ProtocolException(CloseCode::PROTOCOL_ERROR, 'Close frame with a 1-byte payload');
        }
        $code = self::bigEndian($payload, 0, 2);
        if (!CloseCode::isValid($code)) {
            throw new ProtocolException(CloseCode::PROTOCOL_ERROR, "Invalid close code {$code}");
        }
        $reason = \substr($payload, 2);
        if (!Utf8Validator::isValid($reason)) {
            throw new ProtocolException(CloseCode::INVALID_PAYLOAD, 'Close reason is not valid UTF-8');
        }

        return new ControlFrame(Opcode::CLOSE, $payload, $code, $reason);
    }

    private static function bigEndian(string $bytes, int $at, int $size): int
    {
        $value = 0;
        for ($i = $at, $end = $at + $size; $i < $end; $i++) {
            $value = ($value << 8) | \ord($bytes[$i]);
        }

        return $value;
    }
}
