<?php

declare(strict_types=1);

namespace Petrel\WebSocket\Internal;

/** A ping, pong or close frame as parsed; a close frame's code (1005: none) and reason. */
final class ControlFrame
{
    public function __construct(
        public readonly int $opcode,
        public readonly string $payload,
        public readonly int $closeCode = 0,
        public readonly string $closeReason = '',
    ) {
    }
}
