<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql;

/**
 * The bytes received break the MySQL client/server protocol (truncated or malformed packet,
 * out-of-order sequence id, unexpected packet for the current state). The connection that
 * produced it cannot be trusted any more and should be closed.
 */
final class ProtocolException extends MysqlException
{
    public function __construct(string $message, ?\Throwable $previous = null)
    {
        parent::__construct($message, self::CLIENT_MALFORMED_PACKET, '08S01', $previous);
    }
}
