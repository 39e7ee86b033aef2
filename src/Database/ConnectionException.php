<?php

declare(strict_types=1);

namespace Petrel\Database;

/**
 * The connection could not be made, or was lost (server restart, network, timeout
 * mid-command). A lost connection is unusable; pools discard it and connect anew.
 */
class ConnectionException extends DatabaseException
{
}
