<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/**
 * Encodes command payloads (unframed: pass them to PacketFramer::packet() after
 * resetSequence()). What the server answers:
 *   quit: nothing (closes) · ping, initDb, resetConnection: OK or ERR ·
 *   query: see ResultDecoder · stmtPrepare: see PrepareResponseDecoder ·
 *   stmtExecute: see ResultDecoder with binary rows · stmtClose: nothing ·
 *   stmtReset: OK or ERR.
 */
final class Command
{
    public const QUIT = 0x01;
    public const INIT_DB = 0x02;
    public const QUERY = 0x03;
    public const PING = 0x0E;
    public const STMT_PREPARE = 0x16;
    public const STMT_EXECUTE = 0x17;
    public const STMT_CLOSE = 0x19;
    public const STMT_RESET = 0x1A;
    public const RESET_CONNECTION = 0x1F;

    private function __construct()
    {
    }

    public static function query(string $sql): string
    {
        return "\x03" . $sql;
    }

    public static function ping(): string
    {
        return "\x0E";
    }

    public static function quit(): string
    {
        return "\x01";
    }

    public static function initDb(string $database): string
    {
        return "\x02" . $database;
    }

    /** Resets session state (variables, temporary tables, prepared statements) keeping the login. */
    public static function resetConnection(): string
    {
        return "\x1F";
    }

    public static function stmtPrepare(string $sql): string
    {
        return "\x16" . $sql;
    }

    /**
     * @param list<mixed> $params one value per placeholder, in order
     *
     * @see ExecuteEncoder for how PHP values map to parameter types
     */
    public static function stmtExecute(int $statementId, array $params = []): string
    {
        return ExecuteEncoder::encode($statementId, $params);
    }

    public static function stmtClose(int $statementId): string
    {
        return "\x19" . pack('V', $statementId);
    }

    public static function stmtReset(int $statementId): string
    {
        return "\x1A" . pack('V', $statementId);
    }
}
