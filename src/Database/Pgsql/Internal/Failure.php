<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Petrel\Database\QueryException;
use PgSql\Result as PgResult;

/**
 * Builds exceptions from libpq error results.
 *
 * @internal
 */
final class Failure
{
    /**
     * A statement the server rejected: primary message, detail and hint, SQLSTATE as driver
     * code; a StalePlan when a prepared statement's result type changed (the server names
     * the function that raised it, which is not translated as the message may be).
     */
    public static function query(PgResult $result, string $sql): QueryException
    {
        $sqlState = self::field($result, \PGSQL_DIAG_SQLSTATE) ?? 'HY000';
        $message = "PostgreSQL error {$sqlState}: " . self::text($result);

        return $sqlState === '0A000' && self::field($result, \PGSQL_DIAG_SOURCE_FUNCTION) === 'RevalidateCachedQuery'
            ? new StalePlan($message, $sqlState, $sqlState, $sql)
            : new QueryException($message, $sqlState, $sqlState, $sql);
    }

    /** The message of an error result: primary text, then detail and hint when present. */
    public static function text(PgResult $result): string
    {
        $primary = self::field($result, \PGSQL_DIAG_MESSAGE_PRIMARY) ?? \trim(\pg_result_error($result) ?: 'unknown error');
        $detail = self::field($result, \PGSQL_DIAG_MESSAGE_DETAIL);
        $hint = self::field($result, \PGSQL_DIAG_MESSAGE_HINT);

        return $primary . ($detail !== null ? " ({$detail})" : '') . ($hint !== null ? " Hint: {$hint}" : '');
    }

    public static function sqlState(PgResult $result): ?string
    {
        return self::field($result, \PGSQL_DIAG_SQLSTATE);
    }

    /** libpq's message with newlines folded and the password, should it ever appear, masked. */
    public static function clean(string $message, ?string $password): string
    {
        $message = \trim((string) \preg_replace('/\s*\n\s*/', ' ', $message));
        if ($password !== null && \strlen($password) >= 4) {
            $message = \str_replace($password, '***', $message);
        }

        return $message === '' ? 'unknown error' : $message;
    }

    private static function field(PgResult $result, int $code): ?string
    {
        $value = \pg_result_error_field($result, $code);

        return \is_string($value) && $value !== '' ? $value : null;
    }
}
