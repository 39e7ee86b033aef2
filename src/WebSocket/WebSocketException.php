<?php

declare(strict_types=1);

namespace Petrel\WebSocket;

/** A runtime failure of a WebSocket: a failed handshake, a closed connection. */
class WebSocketException extends \RuntimeException
{
}
