<?php

declare(strict_types=1);

namespace Petrel\Socket;

/** The socket was closed (by us or the peer) before the operation could complete. */
final class ClosedException extends SocketException
{
}
