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

    /**
     * Bulk form of next() for result rows: hands the complete packets at the head of the
     * buffer to $decoder in place (RowDecoder::decodeAt(), no payload copied out), appending
     * the rows to $rows, until $limit rows or the first packet that is not a plain row —
     * empty, starting with 0xFE or 0xFF (an end or an error), incomplete, part of a split
     * payload, over the size limit or out of sequence — which is left for next() (to return,
     * or to throw about). Returns how many rows it appended.
     *
     * Hot loop: one call per row.
     *
     * @param list<array<string, mixed>> $rows
     * @throws ProtocolException from the row decoder
     */
    public function rows(RowDecoder $decoder, array &$rows, int $limit): int
    {
        if ($this->partial !== []) {
            return 0;
        }
        $b = $this->buffer;
        $size = \strlen($b);
        $o = $this->offset;
        $sequence = $this->sequence;
        $maxLength = \min(self::MAX_CHUNK - 1, $this->maxPayload);
        $taken = 0;
        while ($taken < $limit && $o + 4 < $size) {
            $length = \ord($b[$o]) | (\ord($b[$o + 1]) << 8) | (\ord($b[$o + 2]) << 16);
            $start = $o + 4;
            $end = $start + $length;
            if ($end > $size || $length === 0 || $length > $maxLength || \ord($b[$o + 3]) !== $sequence
                || $b[$start] === "\xFE" || $b[$start] === "\xFF"
            ) {
                break;
            }
            $rows[] = $decoder->decodeAt($b, $start, $end);
            $sequence = ($sequence + 1) & 0xFF;
            $o = $end;
            ++$taken;
        }
        $this->offset = $o;
        $this->sequence = $sequence;

        return $taken;
    }

    /**
     * The next $count packets, headers included, as one string — for column definitions,
     * which a connection receives again and again byte for byte, so the whole span can be
     * looked up in a cache at once (payloads() cuts it up on a miss). Null, taking nothing,
     * unless all $count have arrived and each is an ordinary packet: in sequence, within
     * the limit, not empty, not part of a split payload, not starting with 0xFF (an error);
     * next() then takes them one by one (and throws about what is wrong).
     */
    public function packets(int $count): ?string
    {
        if ($this->partial !== []) {
            return null;
        }
        $b = $this->buffer;
        $size = \strlen($b);
        $o = $this->offset;
        $sequence = $this->sequence;
        $maxLength = \min(self::MAX_CHUNK - 1, $this->maxPayload);
        for ($i = 0; $i < $count; ++$i) {
            if ($o + 4 >= $size) {
                return null;
            }
            $length = \ord($b[$o]) | (\ord($b[$o + 1]) << 8) | (\ord($b[$o + 2]) << 16);
            if ($o + 4 + $length > $size || $length === 0 || $length > $maxLength
                || \ord($b[$o + 3]) !== $sequence || $b[$o + 4] === "\xFF"
            ) {
                return null;
            }
            $sequence = ($sequence + 1) & 0xFF;
            $o += 4 + $length;
        }
        $span = substr($b, $this->offset, $o - $this->offset);
        $this->offset = $o;
        $this->sequence = $sequence;

        return $span;
    }

    /**
     * The payloads of a span of whole packets (from packets()).
     *
     * @return list<string>
     */
    public static function payloads(string $span): array
    {
        $payloads = [];
        $size = \strlen($span);
        for ($o = 0; $o + 4 <= $size; $o += 4 + $length) {
            $length = \ord($span[$o]) | (\ord($span[$o + 1]) << 8) | (\ord($span[$o + 2]) << 16);
            $payloads[] = substr($span, $o + 4, $length);
        }

        return $payloads;
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
