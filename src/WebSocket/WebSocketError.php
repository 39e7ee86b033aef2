<?php

declare(strict_types=1);

namespace Petrel\WebSocket;

/** Misuse of the WebSocket API: an invalid close code, a reason too long, bad options. */
final class WebSocketError extends \Error
{
}
