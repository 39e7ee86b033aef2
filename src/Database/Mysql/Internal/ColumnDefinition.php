<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\Mysql\ProtocolException;

/**
 * A ColumnDefinition41 packet: six length-encoded strings, then a length-encoded 0x0C and
 * the fixed fields charset (2), column length (4), type (1), flags (2), decimals (1) and
 * two filler bytes.
 */
final class ColumnDefinition
{
    public function __construct(
        public readonly string $catalog,
        public readonly string $schema,
        /** The table alias as written in the query. */
        public readonly string $table,
        /** The physical table. */
        public readonly string $orgTable,
        /** The column alias: the key of the value in an associative row. */
        public readonly string $name,
        /** The physical column. */
        public readonly string $orgName,
        /** Collation id; 63 (binary) for numbers and binary strings. */
        public readonly int $charset,
        /** Maximum display length. */
        public readonly int $length,
        /** One of the ColumnType constants. */
        public readonly int $type,
        /** ColumnFlag bits. */
        public readonly int $flags,
        /** Digits after the point (fractional seconds for temporal types); 31 or more: not fixed. */
        public readonly int $decimals,
    ) {
    }

    public static function parse(string $payload): self
    {
        // Fast path: every string shorter than 251 bytes (a one-byte length), which is
        // nearly always the case. Anything else goes through PayloadReader.
        $o = 0;
        $end = \strlen($payload);
        $s = [];
        for ($i = 0; $i < 6; ++$i) {
            if ($o >= $end) {
                throw new ProtocolException('Truncated column definition');
            }
            $length = \ord($payload[$o]);
            if ($length >= 0xFB) {
                return self::parseSlowly($payload);
            }
            $s[] = (string) substr($payload, $o + 1, $length);
            $o += 1 + $length;
        }
        if ($o + 13 > $end || $payload[$o] !== "\x0C") {
            return self::parseSlowly($payload);
        }
        /** @var array{c: int, l: int, t: int, f: int, d: int} $fixed */
        $fixed = unpack('vc/Vl/Ct/vf/Cd', $payload, $o + 1);

        return new self(
            $s[0],
            $s[1],
            $s[2],
            $s[3],
            $s[4],
            $s[5],
            $fixed['c'],
            $fixed['l'],
            $fixed['t'],
            $fixed['f'],
            $fixed['d'],
        );
    }

    private static function parseSlowly(string $payload): self
    {
        $r = new PayloadReader($payload);
        $catalog = $r->lenencString() ?? '';
        $schema = $r->lenencString() ?? '';
        $table = $r->lenencString() ?? '';
        $orgTable = $r->lenencString() ?? '';
        $name = $r->lenencString() ?? '';
        $orgName = $r->lenencString() ?? '';
        $fixedLength = $r->lenencLength();
        if ($fixedLength < 10) {
            throw new ProtocolException('Invalid column definition: fixed-length fields too short');
        }
        $charset = $r->int2();
        $length = $r->int4();
        $type = $r->int1();
        $flags = $r->int2();
        $decimals = $r->int1();

        return new self(
            $catalog,
            $schema,
            $table,
            $orgTable,
            $name,
            $orgName,
            $charset,
            $length,
            $type,
            $flags,
            $decimals,
        );
    }

    public function isUnsigned(): bool
    {
        return ($this->flags & ColumnFlag::UNSIGNED) !== 0;
    }

    public function isNullable(): bool
    {
        return ($this->flags & ColumnFlag::NOT_NULL) === 0;
    }

    /** Whether the column holds binary data (charset "binary") rather than text. */
    public function isBinary(): bool
    {
        return $this->charset === Charset::BINARY;
    }
}
