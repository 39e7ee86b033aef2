<?php

declare(strict_types=1);

namespace Petrel\Redis\Internal;

use Petrel\Redis\PushMessage;
use Petrel\Redis\RedisProtocolException;

/**
 * Incremental RESP2/RESP3 reply parser: bytes in, PHP values out, no I/O.
 *
 *     $parser->feed($bytesFromSocket);
 *     while ($parser->hasNext()) {
 *         $reply = $parser->next();
 *     }
 *
 * Bytes may arrive in any split (one byte at a time, or many pipelined replies in
 * one read). Replies come out in order, one top-level reply per next().
 *
 * Values, by type byte:
 * - `+` simple string, `$` bulk string, `(` big number → string
 * - `=` verbatim string → string without its "txt:" / "mkd:" format prefix
 * - `:` integer → int (64-bit signed; out of range is a protocol error)
 * - `,` double → float ("inf", "-inf" → ±INF; "nan" and libc variants → NAN)
 * - `#` boolean → bool; `_` null, `$-1`, `*-1` → null
 * - `-` simple error, `!` blob error → {@see \Petrel\Redis\RedisErrorReply} (returned, never thrown)
 * - `*` array, `~` set → list (a set keeps duplicates and wire order)
 * - `%` map → array keyed by the map keys. PHP turns numeric-string keys into ints
 *   ("7" → 7) and a repeated key keeps its last value. If any key is not a string or
 *   an int (null, bool, float, aggregate, error), the map is returned as a flat list
 *   [k1, v1, k2, v2, …] (the RESP2 shape), so no pair is lost (numeric-string keys read
 *   before the first such key keep their int form).
 * - `>` push → {@see PushMessage}, so out-of-band data cannot be taken for a reply (the spec
 *   sends push data at top level only; nested, it is a PushMessage element all the same)
 * - `|` attribute → parsed and dropped, wherever it appears (top level or before an
 *   element inside an aggregate); the element it annotates is returned unchanged.
 * Streamed strings and aggregates (`$?`, `*?`, …) are not supported (Redis does not
 * use them in replies to clients): they raise a RedisProtocolException.
 *
 * Malformed input and exceeded limits raise {@see RedisProtocolException}; the
 * parser then stays failed (hasNext() rethrows it) since the stream is out of sync.
 *
 * Cost is linear in the input: consumed bytes are skipped by an offset (the buffer is
 * compacted once the consumed part outweighs the rest), partially received aggregates
 * are kept on a stack of frames and never re-parsed, a line without its CRLF yet is
 * not rescanned, and the chunks of a large bulk string are joined once, when complete.
 *
 * Why one class of ~440 lines: take(), the one-reply fast path of every command, must
 * apply exactly parse()'s checks and limits and keep its error offsets, so it reads the
 * same state (buffer, offset, frames, failure, dropped bytes) that parse() keeps; apart,
 * that state would be public or each command would pay calls across the split.
 */
final class RespParser
{
    /** The largest bulk string the RESP spec allows (512 MiB). */
    public const DEFAULT_MAX_BULK_LENGTH = 512 * 1024 * 1024;
    /** Longest line (type byte and text of a simple string, error, number or header; CRLF not counted). */
    public const DEFAULT_MAX_LINE_LENGTH = 1024 * 1024;
    /** Deepest nesting of aggregates; deeper replies are refused. */
    public const DEFAULT_MAX_DEPTH = 128;

    /** Most elements (maps: pairs) in one aggregate: more could not fit in memory anyway. */
    public const MAX_AGGREGATE_LENGTH = 0xFFFFFFFF;

    /** Largest value accepted for any limit (2^48). */
    public const LIMIT_CEILING = 1 << 48;

    /** Compact the buffer once at least this many bytes are consumed (and outweigh the rest). */
    private const COMPACT_AFTER = 65536;
    /** While awaiting a large bulk string, append reads to the last chunk until it is this long. */
    private const COALESCE_BELOW = 65536;

    private string $buffer = '';
    /** Position of the first unconsumed byte in $buffer. */
    private int $offset = 0;
    /** Bytes dropped from the front of $buffer so far (for error positions). */
    private int $dropped = 0;
    /** Where to resume looking for the LF ending the line at $offset: there is none before. */
    private int $scanFrom = 0;
    /** @var array<int, string> chunks received while waiting for $needLength bytes */
    private array $tail = [];
    private int $tailLength = 0;
    /** Length $buffer must reach before parsing can progress (0: any new byte may do). */
    private int $needLength = 0;

    /** Innermost open aggregate, or null at top level. */
    private ?AggregateFrame $top = null;
    /** @var list<AggregateFrame> the aggregates enclosing $top, outermost first */
    private array $stack = [];

    private bool $hasReply = false;
    private mixed $reply = null;
    private ?RedisProtocolException $failure = null;

    public function __construct(
        private readonly int $maxBulkLength = self::DEFAULT_MAX_BULK_LENGTH,
        private readonly int $maxLineLength = self::DEFAULT_MAX_LINE_LENGTH,
        private readonly int $maxDepth = self::DEFAULT_MAX_DEPTH,
    ) {
        $limits = ['maxBulkLength' => $maxBulkLength, 'maxLineLength' => $maxLineLength, 'maxDepth' => $maxDepth];
        foreach ($limits as $name => $limit) {
            // The upper bound keeps offset arithmetic far from integer overflow.
            if ($limit < 1 || $limit > self::LIMIT_CEILING) {
                throw new \ValueError(
                    sprintf('RespParser: %s must be between 1 and %d, %d given', $name, self::LIMIT_CEILING, $limit),
                );
            }
        }
    }

    /** Appends bytes received from the server. Ignored once the parser has failed. */
    public function feed(string $bytes): void
    {
        if ($bytes === '' || $this->failure !== null) {
            return;
        }
        if ($this->needLength > 0) {
            $last = count($this->tail) - 1;
            if ($last >= 0 && strlen($this->tail[$last]) < self::COALESCE_BELOW) {
                $this->tail[$last] .= $bytes;
            } else {
                $this->tail[] = $bytes;
            }
            $this->tailLength += strlen($bytes);
            if (strlen($this->buffer) + $this->tailLength >= $this->needLength) {
                $this->joinTail();
            }

            return;
        }
        $length = strlen($this->buffer);
        if ($this->offset === $length) {
            $this->dropped += $length;
            $this->buffer = $bytes;
            $this->offset = 0;
            $this->scanFrom = 0;

            return;
        }
        if ($this->offset >= self::COMPACT_AFTER && $this->offset * 2 >= $length) {
            $this->compact();
        }
        $this->buffer .= $bytes;
    }

    /**
     * feed($bytes), and when they are exactly one bulk string, simple string or integer
     * reply and nothing else is buffered, that reply, already consumed. Otherwise false:
     * the bytes are fed, and hasNext() / next() go on as after feed() (false is never a
     * reply this returns, so a RESP3 false still comes out of next()).
     *
     * The one-command-one-reply path (GET, SET, INCR…) nearly always reads its whole reply
     * in one piece: decoding it here skips the buffer and the general loop of parse(), some
     * 3,500 instructions of a 32-byte GET's. The checks are parse()'s, so anything it would
     * refuse (or treat otherwise) goes its way instead.
     */
    public function take(string $bytes): mixed
    {
        $length = \strlen($bytes);
        if ($this->offset === \strlen($this->buffer) && $this->top === null && $this->needLength === 0
            && !$this->hasReply && $this->failure === null
            && ($lf = \strpos($bytes, "\n")) !== false && $lf > 1 && $lf <= $this->maxLineLength + 1 && $bytes[$lf - 1] === "\r"
        ) {
            $line = \substr($bytes, 1, $lf - 2);
            switch ($bytes[0]) {
                case '$':
                    $n = (int) $line;
                    if ($lf + $n + 3 === $length && $n >= 0 && (string) $n === $line && $n <= $this->maxBulkLength
                        && $bytes[$length - 2] === "\r" && $bytes[$length - 1] === "\n"
                    ) {
                        $this->dropped += $length; // as if fed and consumed: error offsets stay right

                        return \substr($bytes, $lf + 1, $n);
                    }
                    if ($line === '-1' && $lf + 1 === $length) {
                        $this->dropped += $length;

                        return null;
                    }
                    break;
                case '+':
                    if ($lf + 1 === $length) {
                        $this->dropped += $length;

                        return $line;
                    }
                    break;
                case ':':
                    $n = (int) $line;
                    if ($lf + 1 === $length && (string) $n === $line) {
                        $this->dropped += $length;

                        return $n;
                    }
                    break;
            }
        }
        $this->feed($bytes);

        return false;
    }

    /**
     * Whether a complete reply is ready for next().
     *
     * @throws RedisProtocolException on malformed input or an exceeded limit (the
     *                                same exception again on every later call)
     */
    public function hasNext(): bool
    {
        if ($this->hasReply) {
            return true;
        }
        if ($this->failure !== null) {
            throw $this->failure;
        }
        if ($this->needLength > 0 || $this->offset === strlen($this->buffer)) {
            return false; // nothing new to parse: what a request asks before its first read
        }
        try {
            return $this->parse();
        } catch (RedisProtocolException $e) {
            $this->failure = $e;
            $this->top = null;
            $this->stack = [];
            throw $e;
        }
    }

    /**
     * Returns the next complete reply (which may itself be null).
     *
     * @throws RedisProtocolException on malformed input
     * @throws \Error when no complete reply is buffered (check hasNext() first)
     */
    public function next(): mixed
    {
        if (!$this->hasReply && !$this->hasNext()) {
            throw new \Error('RespParser::next() called with no complete reply buffered: call hasNext() first');
        }
        $reply = $this->reply;
        $this->reply = null;
        $this->hasReply = false;

        return $reply;
    }

    /**
     * Parses one top-level reply into $this->reply; false when more bytes are needed.
     *
     * The hot loop, kept in one method on purpose: a method call per element would
     * cost more than parsing the element. Each turn reads one element at $off: a
     * scalar is delivered to the innermost open aggregate (closing every aggregate it
     * completes), an aggregate header opens a new frame. On a short read only the
     * header of the incomplete element is left unconsumed, to be read again.
     */
    private function parse(): bool
    {
        $buf = $this->buffer;
        $len = strlen($buf);
        $off = $this->offset;
        while (true) {
            $lf = strpos($buf, "\n", $this->scanFrom > $off ? $this->scanFrom : $off);
            if ($lf === false) {
                if ($len - $off > $this->maxLineLength + 1) { // + 1: its CR may be there
                    throw $this->error($off, 'no CRLF within %d bytes (too long, or not RESP)', $this->maxLineLength);
                }
                $this->scanFrom = $len;
                $this->offset = $off;

                return false;
            }
            $eol = $lf - 1;
            if ($eol < $off || $buf[$eol] !== "\r") {
                throw $this->error($off, 'line ends with a bare LF instead of CRLF');
            }
            if ($eol - $off > $this->maxLineLength) {
                throw $this->error($off, 'line longer than %d bytes', $this->maxLineLength);
            }
            $type = $buf[$off];
            switch ($type) {
                case '+':
                    $value = substr($buf, $off + 1, $eol - $off - 1);
                    $off = $eol + 2;
                    break;
                case ':':
                    $line = substr($buf, $off + 1, $eol - $off - 1);
                    $value = (int) $line;
                    if ((string) $value !== $line) {
                        $value = RespScalars::integer($line)
                            ?? throw $this->error($off, 'invalid integer %s', RespScalars::quote($line));
                    }
                    $off = $eol + 2;
                    break;
                case '$':
                case '!':
                case '=':
                    $line = substr($buf, $off + 1, $eol - $off - 1);
                    $n = (int) $line;
                    if ($n < 0 || (string) $n !== $line) {
                        if ($line === '-1' && $type === '$') {
                            $value = null;
                            $off = $eol + 2;
                            break;
                        }
                        throw $this->badLength($type, $line, $off);
                    }
                    if ($n > $this->maxBulkLength) {
                        $limit = $this->maxBulkLength;
                        throw $this->error($off, "'%s' length %d exceeds the limit of %d bytes", $type, $n, $limit);
                    }
                    $stop = $eol + 2 + $n;
                    if ($stop + 2 > $len) {
                        $this->needLength = $stop + 2;
                        $this->offset = $off;

                        return false;
                    }
                    if ($buf[$stop] !== "\r" || $buf[$stop + 1] !== "\n") {
                        throw $this->error($off, "'%s' string of %d bytes is not followed by CRLF", $type, $n);
                    }
                    $value = substr($buf, $eol + 2, $n);
                    if ($type !== '$') {
                        $value = RespScalars::blob($type, $value)
                            ?? throw $this->error($off, 'verbatim string without a "fmt:" prefix');
                    }
                    $off = $stop + 2;
                    break;
                case '*':
                case '~':
                case '>':
                case '%':
                case '|':
                    $line = substr($buf, $off + 1, $eol - $off - 1);
                    $n = (int) $line;
                    if ($n < 0 || (string) $n !== $line) {
                        if ($line === '-1' && $type === '*') {
                            $value = null;
                            $off = $eol + 2;
                            break;
                        }
                        throw $this->badLength($type, $line, $off);
                    }
                    if ($n > self::MAX_AGGREGATE_LENGTH) {
                        $limit = self::MAX_AGGREGATE_LENGTH;
                        throw $this->error($off, "'%s' of %d elements exceeds the limit of %d", $type, $n, $limit);
                    }
                    if ($n > 0) {
                        if ($this->top !== null) {
                            if (count($this->stack) + 1 >= $this->maxDepth) {
                                throw $this->error($off, 'aggregates nested deeper than %d levels', $this->maxDepth);
                            }
                            $this->stack[] = $this->top;
                        }
                        $this->top = new AggregateFrame($type, $type === '%' || $type === '|' ? $n * 2 : $n);
                        $off = $eol + 2;
                        continue 2;
                    }
                    $off = $eol + 2;
                    if ($type === '|') {
                        continue 2;
                    }
                    $value = $type === '>' ? new PushMessage([]) : [];
                    break;
                default:
                    $line = substr($buf, $off + 1, $eol - $off - 1);
                    $value = RespScalars::line($type, $line, $this->dropped + $off);
                    $off = $eol + 2;
                    break;
            }

            // Deliver $value to the open aggregates, closing each one it completes.
            while (($frame = $this->top) !== null) {
                if ($frame->type === '%') {
                    if ($frame->remaining % 2 === 1) {
                        $frame->items[$frame->key] = $value;
                    } elseif (is_string($value) || is_int($value)) {
                        $frame->key = $value;
                    } else {
                        $frame->flatten();
                        $frame->items[] = $value;
                    }
                } else {
                    $frame->items[] = $value;
                }
                if (--$frame->remaining > 0) {
                    continue 2;
                }
                $this->top = array_pop($this->stack);
                if ($frame->type === '|') {
                    continue 2;
                }
                $value = $frame->type === '>' ? new PushMessage(array_values($frame->items)) : $frame->items;
            }
            $this->offset = $off;
            $this->reply = $value;
            $this->hasReply = true;

            return true;
        }
    }

    /** Drops the consumed bytes from the front of the buffer. */
    private function compact(): void
    {
        $this->buffer = substr($this->buffer, $this->offset);
        $this->dropped += $this->offset;
        $this->scanFrom = max(0, $this->scanFrom - $this->offset);
        $this->offset = 0;
    }

    /** The awaited bytes have arrived: join them to the unconsumed part, in one copy. */
    private function joinTail(): void
    {
        array_unshift($this->tail, substr($this->buffer, $this->offset));
        $this->buffer = implode('', $this->tail);
        $this->dropped += $this->offset;
        $this->scanFrom = max(0, $this->scanFrom - $this->offset);
        $this->offset = 0;
        $this->tail = [];
        $this->tailLength = 0;
        $this->needLength = 0;
    }

    private function badLength(string $type, string $line, int $at): RedisProtocolException
    {
        if ($line === '?') {
            return $this->error($at, "streamed '%s?' replies are not supported", $type);
        }

        return $this->error($at, "invalid length %s after '%s'", RespScalars::quote($line), $type);
    }

    /** @param int $at position in $buffer of the faulty element's type byte */
    private function error(int $at, string $format, string|int ...$values): RedisProtocolException
    {
        return RespScalars::error(sprintf($format, ...$values), $this->dropped + $at);
    }
}
