<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/** Encodes the protocol's basic types; the counterpart of PayloadReader. Pure functions. */
final class PayloadWriter
{
    private function __construct()
    {
    }

    public static function int1(int $value): string
    {
        return \chr($value & 0xFF);
    }

    public static function int2(int $value): string
    {
        return pack('v', $value);
    }

    public static function int3(int $value): string
    {
        return pack('VX', $value);
    }

    public static function int4(int $value): string
    {
        return pack('V', $value);
    }

    public static function int8(int $value): string
    {
        return pack('P', $value);
    }

    /** A length-encoded integer (values must be non-negative). */
    public static function lenencInt(int $value): string
    {
        if ($value < 0) {
            throw new \ValueError('A length-encoded integer cannot be negative');
        }
        if ($value < 0xFB) {
            return \chr($value);
        }
        if ($value <= 0xFFFF) {
            return "\xFC" . pack('v', $value);
        }
        if ($value <= 0xFFFFFF) {
            return "\xFD" . pack('VX', $value);
        }

        return "\xFE" . pack('P', $value);
    }

    public static function lenencString(string $value): string
    {
        return self::lenencInt(\strlen($value)) . $value;
    }

    public static function nulString(string $value): string
    {
        if (str_contains($value, "\0")) {
            throw new \ValueError('A NUL-terminated string cannot contain NUL bytes');
        }

        return $value . "\0";
    }
}
