<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/**
 * An OK packet (header 0x00, or 0xFE when it ends a result set under CLIENT_DEPRECATE_EOF),
 * or an EOF packet read into the same shape (affected rows and insert id 0).
 */
final class OkPacket
{
    public function __construct(
        public readonly int $affectedRows,
        /** Above PHP_INT_MAX (BIGINT UNSIGNED keys) a decimal string. */
        public readonly int|string $lastInsertId,
        public readonly int $statusFlags,
        public readonly int $warnings,
        public readonly string $info = '',
        /** Raw session-state-change data (only with CLIENT_SESSION_TRACK). */
        public readonly string $sessionState = '',
    ) {
    }

    /** @param int $capabilities the negotiated capability flags */
    public static function parse(string $payload, int $capabilities): self
    {
        // Fast path for the usual 7 bytes: one-byte counts, status, warnings, no info.
        if (\strlen($payload) === 7 && ($capabilities & Capability::PROTOCOL_41) !== 0
            && \ord($payload[1]) < 0xFB && \ord($payload[2]) < 0xFB
        ) {
            return new self(
                \ord($payload[1]),
                \ord($payload[2]),
                \ord($payload[3]) | (\ord($payload[4]) << 8),
                \ord($payload[5]) | (\ord($payload[6]) << 8),
            );
        }
        $reader = new PayloadReader($payload, 1);
        $affectedRows = $reader->lenencUnsigned();
        $lastInsertId = $reader->lenencUnsigned();
        $status = 0;
        $warnings = 0;
        if (($capabilities & Capability::PROTOCOL_41) !== 0) {
            $status = $reader->int2();
            $warnings = $reader->int2();
        } elseif (($capabilities & Capability::TRANSACTIONS) !== 0) {
            $status = $reader->int2();
        }
        $info = '';
        $sessionState = '';
        if (($capabilities & Capability::SESSION_TRACK) !== 0) {
            if ($reader->remaining() > 0) {
                $info = $reader->lenencString() ?? '';
                if (($status & ServerStatus::SESSION_STATE_CHANGED) !== 0 && $reader->remaining() > 0) {
                    $sessionState = $reader->lenencString() ?? '';
                }
            }
        } elseif ($reader->remaining() > 0) {
            $info = self::info($reader);
        }

        return new self(
            \is_int($affectedRows) ? $affectedRows : PHP_INT_MAX,
            $lastInsertId,
            $status,
            $warnings,
            $info,
            $sessionState,
        );
    }

    /**
     * The protocol documents the info text as "rest of packet" without CLIENT_SESSION_TRACK,
     * but MySQL and MariaDB servers length-prefix it anyway (libmysqlclient reads it so):
     * take the length-encoded string when its length fits the packet exactly, else the rest.
     */
    private static function info(PayloadReader $reader): string
    {
        $remaining = $reader->remaining();
        $probe = clone $reader;
        $first = $probe->peek();
        if ($first !== null && $first < 0xFB && $first === $remaining - 1) {
            return $probe->lenencString() ?? '';
        }
        if ($first !== null && $first >= 0xFC && $first <= 0xFE && $remaining >= 9) {
            $length = $probe->lenencLength();
            if ($length === $probe->remaining()) {
                return $probe->bytes($length);
            }
        }

        return $reader->rest();
    }

    /** An EOF packet: 0xFE, warnings (2), status flags (2). */
    public static function parseEof(string $payload): self
    {
        if (\strlen($payload) < 5) {
            return new self(0, 0, 0, 0);
        }
        $reader = new PayloadReader($payload, 1);
        $warnings = $reader->int2();

        return new self(0, 0, $reader->int2(), $warnings);
    }

    /** Another result set follows (multi-statements, CALL). */
    public function hasMoreResults(): bool
    {
        return ($this->statusFlags & ServerStatus::MORE_RESULTS_EXISTS) !== 0;
    }

    public function inTransaction(): bool
    {
        return ($this->statusFlags & ServerStatus::IN_TRANS) !== 0;
    }

    /** The session runs with NO_BACKSLASH_ESCAPES: string escaping must double quotes only. */
    public function noBackslashEscapes(): bool
    {
        return ($this->statusFlags & ServerStatus::NO_BACKSLASH_ESCAPES) !== 0;
    }
}
