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
}
