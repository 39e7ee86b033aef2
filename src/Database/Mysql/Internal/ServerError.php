<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\ConnectionException;
use Petrel\Database\QueryException;

/**
 * Turns a server's ERR packet into the Database layer's exceptions: a QueryException
 * (SQLSTATE, error number, the SQL without parameter values, the codec's MysqlException as
 * previous), or a ConnectionException for the errors after which the server hangs up:
 * those below, and any of SQLSTATE class 08 (connection exception), such as 1153
 * ER_NET_PACKET_TOO_LARGE (08S01) for a command above max_allowed_packet.
 *
 * @internal
 */
final class ServerError
{
    public const DEADLOCK = 1213;
    public const TOO_MANY_PREPARED_STATEMENTS = 1461;

    /** ER_SERVER_SHUTDOWN, ER_ABORTING_CONNECTION, ER_NEW_ABORTING_CONNECTION, ER_CONNECTION_KILLED (MariaDB), ER_CLIENT_INTERACTION_TIMEOUT (MySQL). */
    private const FATAL = [1053 => true, 1152 => true, 1184 => true, 1927 => true, 4031 => true];

    private function __construct()
    {
    }

    public static function toException(ErrPacket $error, string $where, string $sql): QueryException|ConnectionException
    {
        $message = "{$error->message} ({$error->code}, SQLSTATE {$error->sqlState})";
        if (isset(self::FATAL[$error->code]) || \str_starts_with($error->sqlState, '08')) {
            return new ConnectionException("Lost connection to MySQL at {$where}: {$message}", $error->code, $error->toException());
        }

        return new QueryException("MySQL: {$message}", $error->sqlState, $error->code, $sql, $error->toException());
    }
}
