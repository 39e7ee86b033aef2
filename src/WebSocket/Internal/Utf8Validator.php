<?php

declare(strict_types=1);

namespace Petrel\WebSocket\Internal;

/**
 * Incremental UTF-8 validation for text messages that arrive in pieces (frames, or a
 * frame's bytes as they come). push() answers false as soon as the bytes seen so far can
 * no longer be the start of valid UTF-8 — also when the offending sequence is still
 * incomplete (e.g. F4 90: above U+10FFFF whatever follows) — so a bad message fails fast.
 * finish() answers whether the message ended on a character boundary.
 *
 * Whole characters are checked by PCRE's UTF-8 check (rejects overlong forms, surrogates,
 * code points above U+10FFFF); only the at most 3 bytes of a character cut at the end of
 * a piece are kept and checked here, by the table of RFC 3629 §4.
 */
final class Utf8Validator
{
    private string $pending = '';

    public function push(string $bytes): bool
    {
        if ($this->pending !== '') {
            $bytes = $this->pending . $bytes;
            $this->pending = '';
        }
        $length = \strlen($bytes);
        if ($length === 0) {
            return true;
        }
        $cut = self::cutCharacterStart($bytes, $length);
        if ($cut !== null) {
            $this->pending = \substr($bytes, $cut);
            if (!self::isValidPrefix($this->pending)) {
                return false;
            }
            $bytes = \substr($bytes, 0, $cut);
        }

        return \preg_match('//u', $bytes) === 1;
    }

    /** True when everything pushed was valid and no character is left unfinished. */
    public function finish(): bool
    {
        $complete = $this->pending === '';
        $this->pending = '';

        return $complete;
    }

    /** Whole-string check (a close reason, a message known to be complete). */
    public static function isValid(string $bytes): bool
    {
        return \preg_match('//u', $bytes) === 1;
    }

    /** Where an incomplete multi-byte character starts in the last 3 bytes, or null. */
    private static function cutCharacterStart(string $bytes, int $length): ?int
    {
        for ($i = $length - 1, $stop = \max(0, $length - 3); $i >= $stop; $i--) {
            $byte = \ord($bytes[$i]);
            if ($byte < 0x80) {
                return null;
            }
            if ($byte >= 0xC0) {
                $needed = $byte >= 0xF0 ? 4 : ($byte >= 0xE0 ? 3 : 2);

                return $length - $i < $needed ? $i : null;
            }
        }

        return null;
    }

    /** Whether 1–3 bytes can begin a valid UTF-8 character (RFC 3629 §4). */
    private static function isValidPrefix(string $prefix): bool
    {
        $lead = \ord($prefix[0]);
        if ($lead < 0xC2 || $lead > 0xF4) {
            return false;
        }
        $length = \strlen($prefix);
        if ($length >= 2) {
            [$low, $high] = match ($lead) {
                0xE0 => [0xA0, 0xBF],
                0xED => [0x80, 0x9F],
                0xF0 => [0x90, 0xBF],
                0xF4 => [0x80, 0x8F],
                default => [0x80, 0xBF],
            };
            $second = \ord($prefix[1]);
            if ($second < $low || $second > $high) {
                return false;
            }
        }

        return $length < 3 || (\ord($prefix[2]) & 0xC0) === 0x80;
    }
}
