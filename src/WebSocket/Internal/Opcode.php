<?php

declare(strict_types=1);

namespace Petrel\WebSocket\Internal;

/** Frame opcodes (RFC 6455 §5.2); 0x3–0x7 and 0xB–0xF are reserved. */
final class Opcode
{
    public const CONTINUATION = 0x0;
    public const TEXT = 0x1;
    public const BINARY = 0x2;
    public const CLOSE = 0x8;
    public const PING = 0x9;
    public const PONG = 0xA;

    private function __construct()
    {
    }

    public static function isKnown(int $opcode): bool
    {
        return $opcode <= 0x2 || ($opcode >= 0x8 && $opcode <= 0xA);
    }

    public static function isControl(int $opcode): bool
    {
        return $opcode >= 0x8;
    }
}
