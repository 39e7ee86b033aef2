<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/** Recognises generic response packets by their first byte (and length). */
final class Packet
{
    public const OK = 0x00;
    public const AUTH_MORE_DATA = 0x01;
    public const LOCAL_INFILE = 0xFB;
    public const EOF = 0xFE;
    public const ERR = 0xFF;

    private function __construct()
    {
    }

    public static function isErr(string $payload): bool
    {
        return $payload !== '' && $payload[0] === "\xFF";
    }

    public static function isOk(string $payload): bool
    {
        return $payload !== '' && $payload[0] === "\x00";
    }

    /**
     * Whether a packet ends a column list or result set: an EOF packet (0xFE, under 9 bytes),
     * or with CLIENT_DEPRECATE_EOF an OK packet with header 0xFE. A row whose first value
     * starts with 0xFE (an 8-byte length) is at least 9 bytes, and with such a value over
     * 16 MiB, so lengths tell the cases apart.
     */
    public static function isEnd(string $payload, bool $deprecateEof): bool
    {
        if ($payload === '' || $payload[0] !== "\xFE") {
            return false;
        }

        return $deprecateEof ? \strlen($payload) < PacketFramer::MAX_CHUNK : \strlen($payload) < 9;
    }
}
