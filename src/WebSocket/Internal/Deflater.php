<?php

declare(strict_types=1);

namespace Petrel\WebSocket\Internal;

/**
 * Compresses whole outgoing messages (RFC 7692 §7.2.1): raw deflate, flushed with a sync
 * flush whose 00 00 FF FF tail is removed. With context takeover one deflate stream runs
 * for the whole connection (later messages refer back to earlier ones); without, every
 * message gets a fresh stream and nothing is kept between messages.
 */
final class Deflater
{
    private ?\DeflateContext $context = null;

    /** @param int $windowBits 9–15 (zlib cannot make raw deflate with a 256-byte window) */
    public function __construct(private readonly int $windowBits, private readonly bool $noContextTakeover, private readonly int $level = 6)
    {
    }

    /** Whether later messages may refer back to earlier ones (context takeover). */
    public function takesOverContext(): bool
    {
        return !$this->noContextTakeover;
    }

    /**
     * Forgets the context, as after a message that was compressed but not sent: the next
     * message starts a new deflate stream, which the peer's inflater reads whatever it saw
     * before (the stream refers back only into itself; every message ends on a block
     * boundary, and none has BFINAL set).
     */
    public function reset(): void
    {
        $this->context = null;
    }

    public function compress(string $message): string
    {
        $context = $this->context ?? \deflate_init(\ZLIB_ENCODING_RAW, ['window' => $this->windowBits, 'level' => $this->level]);
        if ($context === false) {
            throw new \RuntimeException('deflate_init() failed');
        }
        $compressed = \deflate_add($context, $message, \ZLIB_SYNC_FLUSH);
        if ($compressed === false) {
            throw new \RuntimeException('deflate_add() failed');
        }
        $this->context = $this->noContextTakeover ? null : $context;

        // Nothing to flush (an empty message right after a flush) makes no bytes at all;
        // RFC 7692 §7.2.3.6: send one 0x00, which with the tail forms an empty block.
        return $compressed === '' ? "\x00" : \substr($compressed, 0, -4);
    }
}
