<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\Mysql\ProtocolException;

/** Formats binary-protocol DATE, DATETIME/TIMESTAMP and TIME values as the text protocol does. */
final class TemporalFormat
{
    public const DATE = 0;
    public const DATETIME = 1;
    public const TIME = 2;

    private function __construct()
    {
    }

    /**
     * Reads one temporal value at $offset (advancing it) and formats it.
     *
     * DATE/DATETIME: length 0, 4 (date), 7 (+ time) or 11 (+ microseconds) then year (2),
     * month, day, hour, minute, second, microsecond (4). TIME: length 0, 8 or 12 then
     * negative flag, days (4), hour, minute, second, microsecond (4).
     *
     * @param int $which    self::DATE, self::DATETIME or self::TIME
     * @param int $decimals the column's fractional-second digits (31 or more: unknown)
     */
    public static function binary(string $payload, int &$offset, int $end, int $which, int $decimals): string
    {
        $o = $offset;
        $length = \ord($payload[$o]);
        if ($o + 1 + $length > $end) {
            throw new ProtocolException('Truncated temporal value');
        }
        $offset = $o + 1 + $length;
        $f = array_fill(0, 8, 0);
        if ($length > 0) {
            $format = $which === self::TIME ? 'Cneg/Vdays/Chour/Cmin/Csec' : 'vyear/Cmonth/Cday/Chour/Cmin/Csec';
            $sizes = $which === self::TIME ? [8 => 0, 12 => 1] : [4 => 0, 7 => 0, 11 => 1];
            if (!isset($sizes[$length])) {
                throw new ProtocolException(\sprintf('Invalid temporal value length %d', $length));
            }
            if ($sizes[$length] === 1) {
                $format .= '/Vmicro';
            }
            // Fields absent from a short value unpack past it; pad with zeros.
            /** @var array<string, int> $v */
            $v = unpack($format, substr($payload, $o + 1, $length) . str_repeat("\0", 12), 0);
            $f = array_values($v) + $f;
        }
        if ($which === self::TIME) {
            [$negative, $days, $hour, $minute, $second] = $f;
            $micro = $length === 12 ? $f[5] : 0;
            $text = \sprintf('%s%02d:%02d:%02d', $negative === 1 ? '-' : '', $days * 24 + $hour, $minute, $second);
        } elseif ($which === self::DATE) {
            return \sprintf('%04d-%02d-%02d', $f[0], $f[1], $f[2]);
        } else {
            [$year, $month, $day, $hour, $minute, $second] = $f;
            $micro = $length === 11 ? $f[6] : 0;
            $text = \sprintf('%04d-%02d-%02d %02d:%02d:%02d', $year, $month, $day, $hour, $minute, $second);
        }
        $digits = $decimals >= 1 && $decimals <= 6 ? $decimals : ($micro > 0 ? 6 : 0);

        return $digits === 0 ? $text : $text . '.' . substr(\sprintf('%06d', $micro), 0, $digits);
    }
}
