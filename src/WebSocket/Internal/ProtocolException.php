<?php

declare(strict_types=1);

namespace Petrel\WebSocket\Internal;

use Petrel\WebSocket\WebSocketException;

/**
 * The peer broke the protocol: the connection is failed with $closeCode (1002 protocol
 * error, 1007 invalid payload, 1009 too big) and the message as the close reason.
 */
final class ProtocolException extends WebSocketException
{
    public function __construct(public readonly int $closeCode, string $reason)
    {
        parent::__construct($reason, $closeCode);
    }
}
