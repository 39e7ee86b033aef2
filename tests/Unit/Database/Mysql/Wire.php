<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Mysql;

use Petrel\Database\Mysql\Internal\MetadataCache;
use Petrel\Database\Mysql\Internal\PacketFramer;
use Petrel\Database\Mysql\Internal\ResultDecoder;
use Petrel\Database\Mysql\Internal\ResultEvent;
use PHPUnit\Framework\Assert;

/**
 * Builds protocol bytes for tests straight from the specification, without the code under
 * test, and drives decoders with them whole or one byte at a time.
 */
final class Wire
{
    public const MYSQL_PACKET_HEADER = 4;

    /** Length-encoded integer, written out per the spec. */
    public static function lenencInt(int $n): string
    {
        if ($n < 251) {
            return \chr($n);
        }
        if ($n < 65536) {
            return "\xFC" . \chr($n & 0xFF) . \chr($n >> 8);
        }
        if ($n < 16777216) {
            return "\xFD" . \chr($n & 0xFF) . \chr(($n >> 8) & 0xFF) . \chr($n >> 16);
        }
        $bytes = '';
        for ($i = 0; $i < 8; ++$i) {
            $bytes .= \chr(($n >> (8 * $i)) & 0xFF);
        }

        return "\xFE" . $bytes;
    }

    public static function str(string $s): string
    {
        return self::lenencInt(\strlen($s)) . $s;
    }

    /** A ColumnDefinition41 payload. */
    public static function column(
        string $name,
        int $type,
        int $flags = 0,
        int $charset = 63,
        int $decimals = 0,
        int $length = 11,
        string $table = 't',
    ): string {
        return self::str('def') . self::str('db') . self::str($table) . self::str($table)
            . self::str($name) . self::str($name) . "\x0C"
            . \chr($charset & 0xFF) . \chr($charset >> 8)
            . \chr($length & 0xFF) . \chr(($length >> 8) & 0xFF) . \chr(($length >> 16) & 0xFF) . \chr($length >> 24)
            . \chr($type) . \chr($flags & 0xFF) . \chr($flags >> 8) . \chr($decimals) . "\0\0";
    }

    /**
     * Text row of values (null → 0xFB).
     *
     * @param list<string|null> $values
     */
    public static function textRow(array $values): string
    {
        $row = '';
        foreach ($values as $value) {
            $row .= $value === null ? "\xFB" : self::str($value);
        }

        return $row;
    }

    public static function eof(int $status = 0x0002, int $warnings = 0): string
    {
        return "\xFE" . pack('vv', $warnings, $status);
    }

    /** OK packet with header 0x00 (or 0xFE to end a result set under DEPRECATE_EOF). */
    public static function ok(
        int $affected = 0,
        int $insertId = 0,
        int $status = 0x0002,
        int $warnings = 0,
        string $header = "\x00",
    ): string {
        return $header . self::lenencInt($affected) . self::lenencInt($insertId) . pack('vv', $status, $warnings);
    }

    public static function err(int $code, string $sqlState, string $message): string
    {
        return "\xFF" . pack('v', $code) . '#' . $sqlState . $message;
    }

    /**
     * Frames payloads with consecutive sequence ids.
     *
     * @param list<string> $payloads
     */
    public static function packets(array $payloads, int $firstSequence = 1): string
    {
        $bytes = '';
        foreach ($payloads as $i => $payload) {
            $length = \strlen($payload);
            $bytes .= \chr($length & 0xFF) . \chr(($length >> 8) & 0xFF) . \chr($length >> 16)
                . \chr(($firstSequence + $i) & 0xFF) . $payload;
        }

        return $bytes;
    }

    /** @return list<string> the input cut into single bytes, or one chunk */
    public static function chunks(string $bytes, bool $byteByByte): array
    {
        return $byteByByte ? str_split($bytes) : [$bytes];
    }

    /**
     * Feeds a command response (starting at sequence id 1) to a framer and decoder and
     * records what came out. With $drainLimit, rows are taken with drain() in batches of at
     * most that many instead of push(); the trace must come out the same.
     *
     * @return list<array<int, mixed>>
     */
    public static function decode(
        string $bytes,
        int $capabilities,
        bool $binary = false,
        bool $byteByByte = false,
        ?MetadataCache $cache = null,
        ?int $drainLimit = null,
    ): array {
        $framer = new PacketFramer();
        $framer->resetSequence();
        $framer->packet("\x03"); // our command took sequence id 0
        $decoder = new ResultDecoder($capabilities, $binary, $cache);
        $trace = [];
        foreach (self::chunks($bytes, $byteByByte) as $chunk) {
            $framer->feed($chunk);
            if ($drainLimit !== null) {
                while (!$decoder->isComplete()) {
                    $rows = [];
                    $event = $decoder->drain($framer, $rows, $drainLimit);
                    foreach ($rows as $row) {
                        $trace[] = ['row', $row];
                    }
                    if ($event === null) {
                        break; // needs the next chunk
                    }
                    if ($event !== ResultEvent::Row) {
                        $trace[] = self::describe($decoder, $event);
                    }
                }
                continue;
            }
            while (($payload = $framer->next()) !== null) {
                $trace[] = self::describe($decoder, $decoder->push($payload));
            }
        }
        $trace = array_values(array_filter($trace, static fn ($entry) => $entry !== null));
        $trace[] = ['complete', $decoder->isComplete(), $framer->bufferedLength()];

        return $trace;
    }

    /**
     * decode() through push(), checked against drain() with batches of 1, 2 and unlimited rows.
     *
     * @return list<array<int, mixed>>
     */
    public static function decodeAll(
        string $bytes,
        int $capabilities,
        bool $binary = false,
        bool $byteByByte = false,
        ?MetadataCache $cache = null,
    ): array {
        $trace = self::decode($bytes, $capabilities, $binary, $byteByByte, $cache);
        foreach ([1, 2, PHP_INT_MAX] as $limit) {
            Assert::assertSame($trace, self::decode($bytes, $capabilities, $binary, $byteByByte, $cache, $limit));
        }

        return $trace;
    }

    /** @return array<int, mixed>|null */
    private static function describe(ResultDecoder $decoder, ResultEvent $event): ?array
    {
        return match ($event) {
            ResultEvent::Pending => null,
            ResultEvent::ResultSet => ['columns', array_map(static fn ($c) => $c->name, $decoder->columns())],
            ResultEvent::Row => ['row', $decoder->row()],
            ResultEvent::ResultSetEnd => ['end', $decoder->ok()->statusFlags, $decoder->ok()->warnings],
            ResultEvent::Ok => ['ok', $decoder->ok()->affectedRows, $decoder->ok()->lastInsertId, $decoder->ok()->info],
            ResultEvent::Error => ['error', $decoder->error()->code, $decoder->error()->sqlState,
                $decoder->error()->message],
            ResultEvent::LocalInfileRequest => ['infile', $decoder->localInfileName()],
        };
    }
}
