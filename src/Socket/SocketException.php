<?php

declare(strict_types=1);

namespace Petrel\Socket;

/** An I/O failure on a socket: reset by peer, broken pipe, TLS failure, line too long. */
class SocketException extends \RuntimeException
{
}
