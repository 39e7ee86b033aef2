<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\Mysql\ProtocolException;

/**
 * Splits the byte stream into MySQL packets and frames outgoing payloads.
 *
 * A packet is a 3-byte little-endian payload length, a 1-byte sequence id and the payload.
 * A payload of 0xFFFFFF bytes or more travels as several packets: every full one holds
 * exactly 0xFFFFFF bytes and the last one fewer (possibly none); next() hands back the joined
 * payload.
 *
 * One sequence counter serves both directions, as the protocol wants: each packet read or
 * written takes the current id and advances it (mod 256). Call resetSequence() before
 * sending each command; the connection phase simply continues from the server's greeting
 * (id 0), so the handshake response goes out with id 1, and so on.
 *
 * Incoming bytes are kept in one buffer read through an offset; the consumed prefix is only
 * dropped when it is large, so a buffer holding many packets is never copied per packet.
 */
final class PacketFramer
{
    /** Largest payload of a single packet; a payload this long continues in the next one. */
    public const MAX_CHUNK = 0xFFFFFF;

    /** Protocol maximum (max_allowed_packet can be at most 1 GiB). */
    public const DEFAULT_MAX_PAYLOAD = 1 << 30;

    /** Drop the consumed prefix of the buffer once it is at least this long. */
    private const COMPACT_AFTER = 65536;

    private string $buffer = '';
    private int $offset = 0;
    private int $sequence = 0;
    /** @var list<string> chunks of a payload that spans several packets */
    private array $partial = [];
    private int $partialLength = 0;

    public function __construct(private readonly int $maxPayload = self::DEFAULT_MAX_PAYLOAD)
    {
        if ($maxPayload < 1) {
            throw new \ValueError('maxPayload must be positive');
        }
    }

    /** Appends received bytes. */
    public function feed(string $bytes): void
    {
        if ($this->offset === \strlen($this->buffer)) {
            $this->buffer = $bytes;
            $this->offset = 0;

            return;
        }
        if ($this->offset >= self::COMPACT_AFTER) {
            $this->buffer = substr($this->buffer, $this->offset);
            $this->offset = 0;
        }
        $this->buffer .= $bytes;
    }

    /**
     * The next complete payload, or null when more bytes are needed.
     *
     * @throws ProtocolException on an out-of-order sequence id or an oversized payload
     */
    public function next(): ?string
    {
        while (true) {
            $available = \strlen($this->buffer) - $this->offset;
            if ($available < 4) {
                return null;
            }
            $o = $this->offset;
            $b = $this->buffer;
            $length = \ord($b[$o]) | (\ord($b[$o + 1]) << 8) | (\ord($b[$o + 2]) << 16);
            if ($this->partialLength + $length > $this->maxPayload) {
                throw new ProtocolException(\sprintf(
                    'Packet payload of at least %d bytes exceeds the limit of %d bytes',
                    $this->partialLength + $length,
                    $this->maxPayload,
                ));
            }
            if ($available < 4 + $length) {
                return null;
            }
            $sequence = \ord($b[$o + 3]);
            if ($sequence !== $this->sequence) {
                throw new ProtocolException(\sprintf(
                    'Packet out of order: expected sequence id %d, got %d',
                    $this->sequence,
                    $sequence,
                ));
            }
            $this->sequence = ($sequence + 1) & 0xFF;
            $payload = $length === 0 ? '' : substr($b, $o + 4, $length);
            $this->offset = $o + 4 + $length;

            if ($length === self::MAX_CHUNK) {
                $this->partialLength += $length;
                $this->partial[] = $payload;
                continue;
            }
            if ($this->partial === []) {
                return $payload;
            }
            $this->partial[] = $payload;
            $payload = implode('', $this->partial);
            $this->partial = [];
            $this->partialLength = 0;

            return $payload;
        }
    }

    /** Frames a payload with the current sequence id(s), advancing the counter. */
    public function packet(string $payload): string
    {
        $framed = self::frame($payload, $this->sequence);
        $this->sequence = ($this->sequence + intdiv(\strlen($payload), self::MAX_CHUNK) + 1) & 0xFF;

        return $framed;
    }

    /**
     * Frames a payload starting at the given sequence id. Payloads of 0xFFFFFF bytes or more
     * are split; one that is an exact multiple of 0xFFFFFF ends with an empty packet.
     */
    public static function frame(string $payload, int $sequence): string
    {
        $length = \strlen($payload);
        if ($length < self::MAX_CHUNK) {
            return pack('VX', $length) . \chr($sequence & 0xFF) . $payload;
        }
        $framed = '';
        $offset = 0;
        while ($length - $offset >= self::MAX_CHUNK) {
            $framed .= "\xFF\xFF\xFF" . \chr($sequence & 0xFF) . substr($payload, $offset, self::MAX_CHUNK);
            $offset += self::MAX_CHUNK;
            ++$sequence;
        }
        $rest = $length - $offset;

        return $framed . pack('VX', $rest) . \chr($sequence & 0xFF) . substr($payload, $offset);
    }

    /** Starts a new command: the next packet written carries sequence id 0. */
    public function resetSequence(): void
    {
        $this->sequence = 0;
    }

    /** The sequence id the next packet (read or written) will carry. */
    public function sequence(): int
    {
        return $this->sequence;
    }

    /** Up to $length of the bytes not yet returned by next(), for diagnostics. */
    public function head(int $length): string
    {
        return substr($this->buffer, $this->offset, $length);
    }

    /** Bytes received but not yet returned by next() (including a partial packet). */
    public function bufferedLength(): int
    {
        return \strlen($this->buffer) - $this->offset + $this->partialLength;
    }
}
