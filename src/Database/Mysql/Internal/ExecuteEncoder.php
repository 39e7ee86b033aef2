<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/**
 * Encodes COM_STMT_EXECUTE: 0x17, statement id (4), flags (1, no cursor), iteration count
 * (4, always 1); then, when there are parameters, the NULL bitmap ((n + 7) / 8 bytes),
 * new-params-bound flag (1, always set: types are sent on every execution), the type of
 * each parameter (2 bytes: type, 0x80 if unsigned), and the non-NULL values.
 *
 * PHP values map to: int → LONGLONG (8 bytes, signed), float → DOUBLE, bool → TINY (0/1),
 * null → NULL (bitmap only), string, \Stringable, \DateTimeInterface ('Y-m-d H:i:s[.u]')
 * → VAR_STRING (length-encoded), backed enum → its value. NaN and ±INF, which the server
 * cannot hold (it stores garbage or 0 without an error), are a ValueError; anything else
 * is a TypeError.
 */
final class ExecuteEncoder
{
    private function __construct()
    {
    }

    /** @param list<mixed> $params */
    public static function encode(int $statementId, array $params): string
    {
        $head = "\x17" . pack('VCV', $statementId, 0, 1);
        if ($params === []) {
            return $head;
        }
        if (!array_is_list($params)) {
            throw new \ValueError('Prepared statement parameters must be a list (positional placeholders)');
        }
        $bitmap = array_fill(0, (\count($params) + 7) >> 3, 0);
        $types = '';
        $values = '';
        foreach ($params as $i => $value) {
            if ($value instanceof \BackedEnum) {
                $value = $value->value;
            }
            if (\is_string($value)) {
                $types .= "\xFD\x00";
                $values .= PayloadWriter::lenencString($value);
            } elseif (\is_int($value)) {
                $types .= "\x08\x00";
                $values .= pack('P', $value);
            } elseif ($value === null) {
                $bitmap[$i >> 3] |= 1 << ($i & 7);
                $types .= "\x06\x00";
            } elseif (\is_float($value)) {
                if (!\is_finite($value)) {
                    throw new \ValueError(\sprintf(
                        'Cannot bind %s to prepared statement parameter %d: MySQL and MariaDB have no NaN or infinity '
                        . '(the server would store a wrong number or 0 without an error); bind null, or check is_finite() first',
                        \is_nan($value) ? 'NAN' : ($value > 0 ? 'INF' : '-INF'),
                        $i + 1,
                    ));
                }
                $types .= "\x05\x00";
                $values .= pack('e', $value);
            } elseif (\is_bool($value)) {
                $types .= "\x01\x00";
                $values .= $value ? "\x01" : "\x00";
            } elseif ($value instanceof \DateTimeInterface) {
                $types .= "\xFD\x00";
                $values .= PayloadWriter::lenencString(self::formatDateTime($value));
            } elseif ($value instanceof \Stringable) {
                $types .= "\xFD\x00";
                $values .= PayloadWriter::lenencString((string) $value);
            } else {
                throw new \TypeError(\sprintf(
                    'Cannot bind a value of type %s to prepared statement parameter %d',
                    get_debug_type($value),
                    $i + 1,
                ));
            }
        }

        return $head . pack('C*', ...$bitmap) . "\x01" . $types . $values;
    }

    private static function formatDateTime(\DateTimeInterface $value): string
    {
        $micro = (int) $value->format('u');

        return $value->format($micro === 0 ? 'Y-m-d H:i:s' : 'Y-m-d H:i:s.u');
    }
}
