<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\Mysql\ProtocolException;

/**
 * Reads the protocol's basic types from one packet payload: fixed-length little-endian
 * integers, length-encoded integers and strings, NUL-terminated strings, the rest.
 *
 * For packets read a few times per command (handshake, OK, ERR, column definitions). Row
 * decoding does not use it: the row decoders inline the same logic in their loops.
 */
final class PayloadReader
{
    /** Length-encoded integer prefix meaning NULL (in rows) or, for OK, "not an integer". */
    public const NULL_MARKER = 0xFB;

    public function __construct(private readonly string $data, private int $offset = 0)
    {
    }

    public function offset(): int
    {
        return $this->offset;
    }

    /** @phpstan-impure */
    public function remaining(): int
    {
        return \strlen($this->data) - $this->offset;
    }

    /**
     * The next byte without consuming it, or null at the end.
     *
     * @phpstan-impure
     */
    public function peek(): ?int
    {
        return $this->offset < \strlen($this->data) ? \ord($this->data[$this->offset]) : null;
    }

    public function skip(int $length): void
    {
        $this->need($length);
        $this->offset += $length;
    }

    public function int1(): int
    {
        $this->need(1);

        return \ord($this->data[$this->offset++]);
    }

    public function int2(): int
    {
        $this->need(2);
        $o = $this->offset;
        $this->offset += 2;

        return \ord($this->data[$o]) | (\ord($this->data[$o + 1]) << 8);
    }

    public function int3(): int
    {
        $this->need(3);
        $o = $this->offset;
        $this->offset += 3;

        return \ord($this->data[$o]) | (\ord($this->data[$o + 1]) << 8) | (\ord($this->data[$o + 2]) << 16);
    }

    public function int4(): int
    {
        $this->need(4);
        /** @var array{1: int} $v */
        $v = unpack('V', $this->data, $this->offset);
        $this->offset += 4;

        return $v[1];
    }

    /** An 8-byte integer; values of 2^63 and above wrap to negative (two's complement). */
    public function int8(): int
    {
        $this->need(8);
        /** @var array{1: int} $v */
        $v = unpack('P', $this->data, $this->offset);
        $this->offset += 8;

        return $v[1];
    }

    /** A length-encoded integer, or null for the 0xFB marker. */
    public function lenencInt(): ?int
    {
        $first = $this->int1();
        if ($first < 0xFB) {
            return $first;
        }

        return match ($first) {
            0xFB => null,
            0xFC => $this->int2(),
            0xFD => $this->int3(),
            0xFE => $this->int8(),
            default => throw new ProtocolException('Invalid length-encoded integer prefix 0xFF'),
        };
    }

    /** A length-encoded unsigned integer; above PHP_INT_MAX it comes back as a decimal string. */
    public function lenencUnsigned(): int|string
    {
        $value = $this->lenencInt() ?? throw new ProtocolException('Unexpected NULL length-encoded integer');

        return $value < 0 ? \sprintf('%u', $value) : $value;
    }

    /** A length (of a string): a length-encoded integer that must not be NULL or negative. */
    public function lenencLength(): int
    {
        $length = $this->lenencInt();
        if ($length === null || $length < 0) {
            throw new ProtocolException('Invalid length-encoded string length');
        }

        return $length;
    }

    /** A length-encoded string, or null for the 0xFB marker. */
    public function lenencString(): ?string
    {
        if ($this->peek() === self::NULL_MARKER) {
            ++$this->offset;

            return null;
        }

        return $this->bytes($this->lenencLength());
    }

    public function bytes(int $length): string
    {
        $this->need($length);
        $value = substr($this->data, $this->offset, $length);
        $this->offset += $length;

        return $value;
    }

    /** A NUL-terminated string (the NUL is consumed, not returned). */
    public function nulString(): string
    {
        $end = strpos($this->data, "\0", $this->offset);
        if ($end === false) {
            throw new ProtocolException('Unterminated string in packet');
        }
        $value = substr($this->data, $this->offset, $end - $this->offset);
        $this->offset = $end + 1;

        return $value;
    }

    /** A NUL-terminated string whose terminator may be missing at the end of the packet. */
    public function nulStringOrRest(): string
    {
        $end = strpos($this->data, "\0", $this->offset);

        return $end === false ? $this->rest() : $this->nulString();
    }

    /** Everything left in the payload. */
    public function rest(): string
    {
        $value = (string) substr($this->data, $this->offset);
        $this->offset = \strlen($this->data);

        return $value;
    }

    private function need(int $length): void
    {
        if ($length < 0 || $this->offset + $length > \strlen($this->data)) {
            throw new ProtocolException(\sprintf(
                'Truncated packet: need %d bytes at offset %d, payload has %d',
                $length,
                $this->offset,
                \strlen($this->data),
            ));
        }
    }
}
