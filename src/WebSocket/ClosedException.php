<?php

declare(strict_types=1);

namespace Petrel\WebSocket;

/**
 * Sending on a WebSocket that is closing or closed. The close code and reason are on the
 * WebSocket (getCloseCode(), getCloseReason()).
 */
final class ClosedException extends WebSocketException
{
}
