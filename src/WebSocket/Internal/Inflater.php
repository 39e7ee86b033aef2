<?php

declare(strict_types=1);

namespace Petrel\WebSocket\Internal;

use Petrel\WebSocket\CloseCode;

/**
 * Inflates the payloads of compressed messages (RFC 7692 §7.2.2): raw deflate, the
 * 00 00 FF FF tail appended at the end of each message. Compressed input goes in in
 * steps small enough that the output can pass the size budget by at most one step's
 * worth (deflate expands at most ~1032:1): a zip bomb is stopped with 1009 after
 * inflating little more than the limit, never all of it.
 */
final class Inflater
{
    private const TAIL = "\x00\x00\xff\xff";
    /** deflate's maximum expansion ratio, rounded up */
    private const MAX_RATIO = 1032;

    private ?\InflateContext $context = null;
    /** The current message's deflate stream has ended (a block with BFINAL set). */
    private bool $ended = false;

    /** @param bool $resetPerMessage the peer compresses without context takeover: no state to keep */
    public function __construct(private readonly bool $resetPerMessage)
    {
    }

    /**
     * Inflates a piece of a message's compressed payload.
     *
     * @param int $budget how many more inflated bytes the message may have
     * @throws ProtocolException 1009 past the budget, 1007 for corrupt data
     */
    public function add(string $data, int $budget): string
    {
        $context = $this->context ??= self::open();
        $output = '';
        $offset = 0;
        $length = \strlen($data);
        while ($offset < $length && !$this->ended) {
            $step = \max(256, \min(65536, \intdiv(\max(0, $budget - \strlen($output)), self::MAX_RATIO) + 1));
            $piece = @\inflate_add($context, \substr($data, $offset, $step), \ZLIB_SYNC_FLUSH);
            if ($piece === false) {
                $this->context = null;
                $this->ended = false;
                throw new ProtocolException(CloseCode::INVALID_PAYLOAD, 'Corrupt compressed data');
            }
            $output .= $piece;
            $offset += $step;
            // A block with BFINAL ended the stream (see finish()): what follows in the
            // message is the sender's padding, and zlib would take it for a new stream.
            $this->ended = \inflate_get_status($context) === \ZLIB_STREAM_END;
            if (\strlen($output) > $budget) {
                $this->context = null;
                $this->ended = false;
                throw new ProtocolException(CloseCode::MESSAGE_TOO_BIG, 'Message too big once inflated');
            }
        }

        return $output;
    }

    /**
     * Ends a message: inflates the tail and, without context takeover, forgets the state.
     * So it does after a message whose deflate stream ended (a block with BFINAL set,
     * RFC 7692 §7.2.3.4): an ended stream takes no more input, and its sender starts a new
     * one for the next message.
     *
     * @throws ProtocolException
     */
    public function finish(int $budget): string
    {
        $output = $this->add(self::TAIL, $budget);
        if ($this->resetPerMessage || $this->ended) {
            $this->context = null;
            $this->ended = false;
        }

        return $output;
    }

    private static function open(): \InflateContext
    {
        // Window 15 inflates anything compressed with a window of 15 bits or fewer.
        $context = \inflate_init(\ZLIB_ENCODING_RAW, ['window' => 15]);
        if ($context === false) {
            throw new \RuntimeException('inflate_init() failed');
        }

        return $context;
    }
}
