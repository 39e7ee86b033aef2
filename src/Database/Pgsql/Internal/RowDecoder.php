<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Petrel\Database\Result;
use PgSql\Result as PgResult;

/**
 * Rows of a libpq result with PHP types, chosen by each column's type OID: int2, int4, int8
 * and oid → int (an int8 that does not fit a 32-bit PHP int stays a string); float4 and
 * float8 → float (NaN and ±Infinity too); bool → bool; bytea → the decoded bytes; NULL →
 * null. Everything else stays the text PostgreSQL prints: numeric (exact), dates and
 * timestamps, json/jsonb (not decoded), arrays ('{1,2,3}'), uuid, intervals…
 *
 * @internal
 */
final class RowDecoder
{
    private const BOOL = 1;
    private const INT = 2;
    private const INT8 = 3;
    private const FLOAT = 4;
    private const BYTEA = 5;

    /** Type OIDs from pg_type.dat. */
    private const KINDS = [
        16 => self::BOOL, 17 => self::BYTEA, 20 => self::INT8, 21 => self::INT, 23 => self::INT, 26 => self::INT,
        700 => self::FLOAT, 701 => self::FLOAT,
    ];

    /**
     * @param array<string, int>|null $casts the result's casts() when the caller keeps them
     *        (a prepared statement's columns do not change), else worked out here
     * @return list<array<string, mixed>>
     */
    public static function rows(PgResult $result, ?array $casts = null): array
    {
        /** @var list<array<string, string|null>> $rows */
        $rows = \pg_fetch_all($result, \PGSQL_ASSOC);
        if ($rows === []) {
            return [];
        }
        $casts ??= self::casts($result);
        if ($casts === []) {
            return $rows;
        }
        foreach ($rows as &$row) {
            foreach ($casts as $name => $kind) {
                if (($value = $row[$name]) !== null) {
                    $row[$name] = $kind === self::INT ? (int) $value : self::cast($kind, $value); // ints: no call
                }
            }
        }
        unset($row);

        return $rows;
    }

    /**
     * Affected rows, and as lastInsertId the first column of the first row returned by
     * INSERT/UPDATE/DELETE/MERGE … RETURNING (PostgreSQL has no last insert id).
     */
    public static function summary(PgResult $result): Result
    {
        $id = null;
        $tag = \pg_result_status($result, \PGSQL_STATUS_STRING);
        if (\pg_num_fields($result) > 0 && \preg_match('/^(?:INSERT|UPDATE|DELETE|MERGE) /', $tag) === 1) {
            $value = self::firstValue($result);
            $id = \is_int($value) || \is_string($value) ? $value : null;
        }

        return new Result(\pg_affected_rows($result), $id);
    }

    /** The first column of the first row, typed, or null if there is none. */
    public static function firstValue(PgResult $result): mixed
    {
        if (\pg_num_rows($result) === 0 || \pg_num_fields($result) === 0) {
            return null;
        }
        $value = \pg_fetch_result($result, 0, 0);
        if (!\is_string($value)) {
            return null;
        }
        $kind = self::KINDS[\pg_field_type_oid($result, 0)] ?? null;

        return $kind === null ? $value : self::cast($kind, $value);
    }

    /**
     * Column name => kind for the columns that need a cast. With duplicate names the last
     * column wins, as it does in the fetched row. The same for every result of a prepared
     * statement: the server refuses to run one whose columns would change (0A000), so a
     * caller running it again can keep them and save a call per column and result.
     *
     * @return array<string, int>
     */
    public static function casts(PgResult $result): array
    {
        $casts = [];
        for ($i = 0, $n = \pg_num_fields($result); $i < $n; $i++) {
            $kind = self::KINDS[\pg_field_type_oid($result, $i)] ?? null;
            $name = \pg_field_name($result, $i);
            if ($kind === null) {
                unset($casts[$name]);
            } else {
                $casts[$name] = $kind;
            }
        }

        return $casts;
    }

    private static function cast(int $kind, string $value): mixed
    {
        return match ($kind) {
            self::INT => (int) $value,
            self::BOOL => $value === 't',
            self::FLOAT => match ($value) {
                'NaN' => \NAN,
                'Infinity' => \INF,
                '-Infinity' => -\INF,
                default => (float) $value,
            },
            self::INT8 => \PHP_INT_SIZE >= 8 || (string) (int) $value === $value ? (int) $value : $value,
            default => \pg_unescape_bytea($value),
        };
    }
}
