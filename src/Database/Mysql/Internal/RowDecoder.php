<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/** Turns one row packet into an associative array keyed by column name. */
interface RowDecoder
{
    /**
     * @return array<string, mixed>
     *
     * @throws \Petrel\Database\Mysql\ProtocolException when the packet is malformed
     */
    public function decode(string $payload): array;

    /**
     * decode() of the payload at $buffer[$offset, $end), read in place: PacketFramer::rows()
     * hands rows over this way, without copying each payload out of its read buffer.
     *
     * @return array<string, mixed>
     *
     * @throws \Petrel\Database\Mysql\ProtocolException when the packet is malformed
     */
    public function decodeAt(string $buffer, int $offset, int $end): array;
}
