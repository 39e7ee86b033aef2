<?php

declare(strict_types=1);

namespace Petrel\WebSocket;

/** The server did not accept the opening handshake, or answered it wrongly. */
final class HandshakeException extends WebSocketException
{
}
