<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Generator;

/**
 * Streams a query through a server-side cursor, BATCH rows per round trip, so a large
 * result never sits in memory at once (ext-pgsql has no single-row mode, and a plain
 * query buffers the whole result in libpq).
 *
 * Outside a transaction it opens one (DECLARE needs it): BEGIN; DECLARE … NO SCROLL
 * CURSOR FOR <sql>; FETCH — one round trip without parameters, three with. Inside the
 * caller's transaction the cursor lives in it. Cleanup — COMMIT (ROLLBACK after an
 * error) of the transaction it opened, or CLOSE of the cursor in the caller's — is sent
 * without waiting and its reply read before the connection's next command, because it
 * may run while the generator is being destroyed, where a coroutine cannot suspend. It
 * is sent as soon as the last batch is in, before its rows are yielded.
 *
 * Only statements a cursor accepts can be streamed: SELECT, VALUES, TABLE, WITH … SELECT.
 *
 * @internal
 */
final class Cursor
{
    public const BATCH = 1000;

    /**
     * @param list<int|string|null> $values
     * @return Generator<int, array<string, mixed>, mixed, void>
     */
    public static function rows(Exchange $exchange, string $name, ParsedSql $parsed, array $values, string $sql): Generator
    {
        $own = $exchange->transactionStatus() === \PGSQL_TRANSACTION_IDLE;
        $declare = "DECLARE {$name} NO SCROLL CURSOR FOR " . \rtrim($parsed->sql, " \t\n\r\f\v;") . "\n";
        $fetch = 'FETCH ' . self::BATCH . " FROM {$name}";
        $declared = false;
        $finished = false;
        $casts = null; // every FETCH of the cursor has the same columns
        try {
            if ($values === []) {
                $result = $exchange->query(($own ? "BEGIN;\n" : '') . "{$declare};\n{$fetch}", $sql);
            } else {
                if ($own) {
                    $exchange->query('BEGIN', 'BEGIN');
                }
                $exchange->queryParams($declare, $values, $sql);
                $declared = true;
                $result = $exchange->query($fetch, $sql);
            }
            $declared = true;
            while (true) {
                $rows = RowDecoder::rows($result, $casts ??= RowDecoder::casts($result));
                unset($result);
                if (\count($rows) < self::BATCH) {
                    $finished = true;
                    self::finish($exchange, $name, $own, $declared);
                }
                foreach ($rows as $row) {
                    yield $row;
                }
                if ($finished) {
                    return;
                }
                unset($rows);
                $result = $exchange->query($fetch, $sql);
            }
        } finally {
            if (!$finished) {
                self::finish($exchange, $name, $own, $declared);
            }
        }
    }

    /** Ends what rows() opened, without waiting. */
    private static function finish(Exchange $exchange, string $name, bool $own, bool $declared): void
    {
        $status = $exchange->transactionStatus();
        if ($status === \PGSQL_TRANSACTION_UNKNOWN || $status === \PGSQL_TRANSACTION_IDLE) {
            return; // dead, or nothing was opened
        }
        if ($own) {
            $exchange->dispatch($status === \PGSQL_TRANSACTION_INERROR ? 'ROLLBACK' : 'COMMIT', \PGSQL_TRANSACTION_IDLE);
        } elseif ($declared && $status === \PGSQL_TRANSACTION_INTRANS) {
            $exchange->dispatch("CLOSE {$name}", $status);
        }
        // In the caller's failed transaction the cursor goes with their ROLLBACK.
    }
}
