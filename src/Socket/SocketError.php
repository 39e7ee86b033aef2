<?php

declare(strict_types=1);

namespace Petrel\Socket;

/** Misuse of a socket: two coroutines reading at once, a malformed address. */
final class SocketError extends \Error
{
}
