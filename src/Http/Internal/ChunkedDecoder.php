<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\HttpException;
use Petrel\Http\HttpLimits;

/**
 * Incremental decoder for the chunked transfer coding (RFC 9112 §7.1). Chunk extensions
 * are validated and ignored; trailer fields are parsed and kept apart from the head's
 * fields, so a trailer can never override a header a proxy has already checked.
 *
 * @internal
 */
final class ChunkedDecoder
{
    /** Longest chunk-size line, extensions included. */
    public const MAX_SIZE_LINE_BYTES = 4096;

    /** Most significant hex digits a chunk size may have (16^15 bytes cannot overflow). */
    private const MAX_SIZE_DIGITS = 15;

    private const SIZE = 0;
    private const DATA = 1;
    private const DATA_END = 2;
    private const TRAILER = 3;
    private const DONE = 4;

    private int $state = self::SIZE;

    private int $remaining = 0;

    /** Bytes after the current offset already searched for a line end (no re-scans). */
    private int $scanned = 0;

    /** @var array<string, list<string>> */
    private array $trailers = [];

    public function __construct(private readonly HttpLimits $limits, private readonly BodySink $sink)
    {
    }

    /**
     * Consumes as much of $buffer from $offset as it can.
     *
     * @return int the offset of the first byte not consumed
     * @throws HttpException 400 on bad framing, 413 when the body grows past the limit
     */
    public function decode(string $buffer, int $offset): int
    {
        $length = \strlen($buffer);
        while ($offset < $length) {
            switch ($this->state) {
                case self::DATA:
                    $take = \min($this->remaining, $length - $offset);
                    $this->sink->append($offset === 0 && $take === $length ? $buffer : \substr($buffer, $offset, $take));
                    $offset += $take;
                    $this->remaining -= $take;
                    if ($this->remaining === 0) {
                        $this->state = self::DATA_END;
                    }
                    break;
                case self::SIZE:
                    $eol = $this->findLineEnd($buffer, $offset, "\r\n", self::MAX_SIZE_LINE_BYTES, 400);
                    if ($eol === -1) {
                        return $offset;
                    }
                    $size = self::parseSize(\substr($buffer, $offset, $eol - $offset));
                    $offset = $eol + 2;
                    if ($size === 0) {
                        $this->state = self::TRAILER;
                    } elseif ($size > $this->limits->maxBodyBytes - $this->sink->size()) {
                        throw new HttpException(413, 'Request body too large');
                    } else {
                        $this->remaining = $size;
                        $this->state = self::DATA;
                    }
                    break;
                case self::DATA_END:
                    if ($buffer[$offset] !== "\r" || ($offset + 1 < $length && $buffer[$offset + 1] !== "\n")) {
                        throw new HttpException(400, 'Missing CRLF after chunk data');
                    }
                    if ($offset + 1 === $length) {
                        return $offset;
                    }
                    $offset += 2;
                    $this->state = self::SIZE;
                    break;
                case self::TRAILER:
                    return $this->readTrailers($buffer, $offset, $length);
                default:
                    return $offset;
            }
        }

        return $offset;
    }

    public function isDone(): bool
    {
        return $this->state === self::DONE;
    }

    /** @return array<string, list<string>> */
    public function trailers(): array
    {
        return $this->trailers;
    }

    private function readTrailers(string $buffer, int $offset, int $length): int
    {
        if ($buffer[$offset] === "\r" && $this->scanned === 0) {
            if ($offset + 1 === $length) {
                return $offset;
            }
            if ($buffer[$offset + 1] === "\n") {
                $this->state = self::DONE;

                return $offset + 2;
            }
        }
        $end = $this->findLineEnd($buffer, $offset, "\r\n\r\n", $this->limits->maxHeaderBytes, 431);
        if ($end === -1) {
            return $offset;
        }
        $block = \substr($buffer, $offset, $end - $offset);
        $lines = \explode("\r\n", $block);
        $count = \count($lines);
        if (!FieldLines::isBlockSafe($block, $count)) {
            throw new HttpException(400, 'Invalid character in trailer section');
        }
        if ($count > $this->limits->maxHeaderCount) {
            throw new HttpException(431, 'Too many trailer fields');
        }
        $this->trailers = FieldLines::parse($lines, 0);
        $this->state = self::DONE;

        return $end + 4;
    }

    /**
     * Position of $needle at or after $offset, or -1 when more bytes are needed. More than
     * $limit bytes before $needle fail with $status as soon as they are buffered, whether
     * $needle has arrived or not. Remembers how far it searched, so trickling bytes do not
     * cause re-scans.
     */
    private function findLineEnd(string $buffer, int $offset, string $needle, int $limit, int $status): int
    {
        $end = \strpos($buffer, $needle, $offset + $this->scanned);
        if ($end === false) {
            $available = \strlen($buffer) - $offset;
            // The last bytes may be the start of $needle: not counted, so that a line that
            // fits fails neither whole nor split (the status must not depend on the split).
            if ($available - \strlen($needle) + 1 > $limit) {
                throw new HttpException($status, $status === 431 ? 'Trailer section too large' : 'Chunk size line too long');
            }
            $this->scanned = \max(0, $available - \strlen($needle) + 1);

            return -1;
        }
        $this->scanned = 0;
        if ($end - $offset > $limit) {
            throw new HttpException($status, $status === 431 ? 'Trailer section too large' : 'Chunk size line too long');
        }

        return $end;
    }

    private static function parseSize(string $line): int
    {
        $semicolon = \strpos($line, ';');
        if ($semicolon !== false) {
            $extensions = \substr($line, $semicolon);
            if (!FieldLines::isLineSafe($extensions)) {
                throw new HttpException(400, 'Invalid chunk extension');
            }
            $line = \rtrim(\substr($line, 0, $semicolon), " \t");
        }
        $length = \strlen($line);
        if ($length === 0 || \strspn($line, '0123456789abcdefABCDEF') !== $length) {
            throw new HttpException(400, 'Invalid chunk size');
        }
        $digits = \ltrim($line, '0');
        if (\strlen($digits) > self::MAX_SIZE_DIGITS) {
            throw new HttpException(400, 'Chunk size overflow');
        }

        return $digits === '' ? 0 : (int) \hexdec($digits);
    }
}
