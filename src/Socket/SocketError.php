<?php

declare(strict_types=1);

namespace Petrel\Socket;

/** Misuse of a socket: two coroutines reading at once, a malformed address, an invalid option. */
final class SocketError extends \Error
{
}
