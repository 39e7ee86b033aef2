<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\WebSocket;

use Petrel\WebSocket\Internal\ControlFrame;
use Petrel\WebSocket\Internal\FrameEncoder;
use Petrel\WebSocket\Internal\FrameParser;
use Petrel\WebSocket\Internal\Inflater;
use Petrel\WebSocket\Internal\ProtocolException;
use Petrel\WebSocket\Message;

/** Builds raw frames and feeds them to a FrameParser in different splits. */
final class FrameHarness
{
    /** A frame as a client sends it (masked), with any header bits and length encoding. */
    public static function clientFrame(int $opcode, string $payload, bool $fin = true, int $rsv = 0, ?int $lengthBytes = null): string
    {
        return self::frame($opcode, $payload, $fin, $rsv, \random_bytes(4), $lengthBytes);
    }

    public static function serverFrame(int $opcode, string $payload, bool $fin = true, int $rsv = 0): string
    {
        return self::frame($opcode, $payload, $fin, $rsv, null, null);
    }

    /** @param int|null $lengthBytes force a 0, 2 or 8-byte extended length (non-minimal) */
    public static function frame(int $opcode, string $payload, bool $fin, int $rsv, ?string $mask, ?int $lengthBytes): string
    {
        $length = \strlen($payload);
        $lengthBytes ??= $length < 126 ? 0 : ($length <= 0xFFFF ? 2 : 8);
        $maskBit = $mask === null ? 0 : 0x80;
        $head = \chr(($fin ? 0x80 : 0) | ($rsv << 4) | $opcode);
        $head .= match ($lengthBytes) {
            0 => \chr($maskBit | $length),
            2 => \chr($maskBit | 126) . \pack('n', $length),
            default => \chr($maskBit | 127) . \pack('J', $length),
        };

        return $mask === null ? $head . $payload : $head . $mask . FrameEncoder::applyMask($payload, $mask, 0);
    }

    public static function parser(bool $server = true, int $maxMessage = 1 << 24, int $maxFrame = 1 << 24, bool $deflate = false): FrameParser
    {
        return new FrameParser($server, $maxMessage, $maxFrame, $deflate ? new Inflater(false) : null);
    }

    /**
     * @param list<string> $pieces
     * @return list<string> each event described: "text:…", "binary:…", "ping:…", "close:1000:…"
     */
    public static function feedPieces(FrameParser $parser, array $pieces): array
    {
        $events = [];
        foreach ($pieces as $piece) {
            $parser->feed($piece);
            while (($event = $parser->next()) !== null) {
                $events[] = self::describe($event);
            }
        }

        return $events;
    }

    /** @return list<list<string>> the pieces: whole, byte by byte, and 10 random splits */
    public static function splits(string $bytes): array
    {
        $splits = [[$bytes], \str_split($bytes)];
        for ($seed = 1; $seed <= 10; $seed++) {
            $random = new \Random\Randomizer(new \Random\Engine\Mt19937($seed));
            $pieces = [];
            for ($offset = 0, $length = \strlen($bytes); $offset < $length; $offset += $size) {
                $size = $random->getInt(1, 9);
                $pieces[] = \substr($bytes, $offset, $size);
            }
            $splits[] = $pieces;
        }

        return $splits;
    }

    /**
     * The close code of the ProtocolException the bytes cause, or null.
     *
     * @param \Closure(): FrameParser $makeParser
     * @return list<int|null> one result per split (whole, byte by byte, random)
     */
    public static function errorCodes(string $bytes, \Closure $makeParser): array
    {
        $codes = [];
        foreach (self::splits($bytes) as $pieces) {
            try {
                self::feedPieces($makeParser(), $pieces);
                $codes[] = null;
            } catch (ProtocolException $e) {
                $codes[] = $e->closeCode;
            }
        }

        return \array_values(\array_unique($codes, \SORT_REGULAR));
    }

    public static function describe(Message|ControlFrame $event): string
    {
        if ($event instanceof Message) {
            return ($event->binary ? 'binary:' : 'text:') . $event->data;
        }

        return match ($event->opcode) {
            0x8 => "close:{$event->closeCode}:{$event->closeReason}",
            0x9 => "ping:{$event->payload}",
            default => "pong:{$event->payload}",
        };
    }
}
