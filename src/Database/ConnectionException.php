<?php

declare(strict_types=1);

namespace Petrel\Database;

/**
 * The connection could not be made, or was lost (server restart, network, timeout
 * mid-command). A lost connection is unusable; pools discard it and connect anew.
 *
 * $transactionLost is true on the first exception a connection throws after it was lost
 * with a transaction open: that transaction is gone (the server rolls it back), and its
 * work must be done again from the start on another connection. The message says so too.
 */
class ConnectionException extends DatabaseException
{
    /** What every driver adds to the message of a connection lost with a transaction open. */
    public const TRANSACTION_LOST = '; the transaction open on it was lost (the server rolls it back)';

    public function __construct(string $message = '', int $code = 0, ?\Throwable $previous = null, public readonly bool $transactionLost = false)
    {
        parent::__construct($message, $code, $previous);
    }
}
