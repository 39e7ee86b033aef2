<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

/**
 * One satisfiable byte range of a representation (RFC 9110 §14.1.2), parsed from a Range
 * header value: "bytes=a-b", "bytes=a-" or "bytes=-n" (the last n bytes).
 *
 * parse() returns null when the header is to be ignored and the whole representation sent
 * (another unit, invalid syntax, last < first, an empty representation, or several ranges:
 * RFC 9110 §14.2 lets a server ignore Range, and we do rather than build
 * multipart/byteranges), and false when the one range cannot be satisfied (416).
 *
 * @internal
 */
final readonly class ByteRange
{
    private function __construct(
        public int $start,
        public int $end,
    ) {
    }

    public static function parse(string $header, int $size): self|false|null
    {
        if ($size <= 0 || \strncasecmp($header, 'bytes=', 6) !== 0) {
            return null;
        }
        $spec = null;
        foreach (\explode(',', \substr($header, 6)) as $item) {
            $item = \trim($item, " \t");
            if ($item === '') {
                continue; // empty list elements are allowed (RFC 9110 §5.6.1)
            }
            if ($spec !== null) {
                return null;
            }
            $spec = $item;
        }
        if ($spec === null || \preg_match('/^(\d*)-(\d*)$/D', $spec, $m) !== 1 || $spec === '-') {
            return null;
        }
        [, $first, $last] = $m;
        if ($first === '') {
            $suffix = self::toInt($last);

            return $suffix === 0 ? false : new self(\max(0, $size - $suffix), $size - 1);
        }
        $start = self::toInt($first);
        $end = $last === '' ? \PHP_INT_MAX : self::toInt($last);
        if ($end < $start) {
            return null;
        }
        if ($start >= $size) {
            return false;
        }

        return new self($start, \min($end, $size - 1));
    }

    public function length(): int
    {
        return $this->end - $this->start + 1;
    }

    /** The Content-Range value of this range, e.g. "bytes 0-99/1234". */
    public function contentRange(int $size): string
    {
        return "bytes {$this->start}-{$this->end}/{$size}";
    }

    /** Digits to int; numbers past PHP_INT_MAX saturate (they are past any file's end). */
    private static function toInt(string $digits): int
    {
        $digits = \ltrim($digits, '0');

        return \strlen($digits) > 18 ? \PHP_INT_MAX : (int) $digits;
    }
}
