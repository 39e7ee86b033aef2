<?php

declare(strict_types=1);

namespace Petrel\Socket;

/** A connection could not be established: refused, unreachable, timed out, name not found. */
final class ConnectException extends SocketException
{
}
