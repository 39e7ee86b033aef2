<?php

declare(strict_types=1);

namespace Petrel\WebSocket\Internal;

/**
 * Builds frames (RFC 6455 §5.2), pure. Lengths use the minimal encoding (7, 16 or 64
 * bits); a client masks every frame with a fresh random key (§5.3), a server never does.
 */
final class FrameEncoder
{
    public function __construct(private readonly bool $mask)
    {
    }

    public function frame(int $opcode, string $payload, bool $fin = true, bool $rsv1 = false): string
    {
        $length = \strlen($payload);
        $head = \chr(($fin ? 0x80 : 0) | ($rsv1 ? 0x40 : 0) | $opcode);
        $maskBit = $this->mask ? 0x80 : 0;
        if ($length < 126) {
            $head .= \chr($maskBit | $length);
        } elseif ($length <= 0xFFFF) {
            $head .= \chr($maskBit | 126) . \pack('n', $length);
        } else {
            $head .= \chr($maskBit | 127) . \pack('J', $length);
        }
        if (!$this->mask) {
            return $head . $payload;
        }
        $key = \random_bytes(4);

        return $head . $key . self::applyMask($payload, $key, 0);
    }

    /** A close frame's payload: the code and a reason (empty for 1005: no code at all). */
    public static function closePayload(int $code, string $reason): string
    {
        return $code === \Petrel\WebSocket\CloseCode::NO_STATUS ? '' : \pack('n', $code) . $reason;
    }

    /**
     * XORs $data with the 4-byte $key, the key rotated as if $data started $offset bytes
     * into the payload (frames are unmasked piece by piece as their bytes arrive).
     */
    public static function applyMask(string $data, string $key, int $offset): string
    {
        $length = \strlen($data);
        if ($length === 0) {
            return '';
        }
        $shift = $offset & 3;
        if ($shift !== 0) {
            $key = \substr($key, $shift) . \substr($key, 0, $shift);
        }

        return $data ^ \str_repeat($key, ($length >> 2) + 1);
    }
}
