<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Mysql;

use Petrel\Database\Mysql\Internal\ColumnDefinition;
use Petrel\Database\Mysql\Internal\ColumnType as T;
use Petrel\Database\Mysql\Internal\PacketFramer;
use Petrel\Database\Mysql\Internal\TextRowDecoder;
use Petrel\Database\Mysql\ProtocolException;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

/** PacketFramer's bulk readers: rows() (rows decoded in place) and packets() (column definitions at once). */
#[CoversClass(PacketFramer::class)]
#[CoversClass(TextRowDecoder::class)]
final class PacketFramerBulkTest extends TestCase
{
    public function testRowsDecodesInPlaceAndStopsAtTheEndPacket(): void
    {
        $framer = self::framer([Wire::textRow(['1', 'a']), Wire::textRow(['2', str_repeat('L', 300)]), Wire::ok(header: "\xFE")]);
        $rows = [];
        self::assertSame(2, $framer->rows(self::decoder(), $rows, 10));
        self::assertSame([['id' => 1, 'name' => 'a'], ['id' => 2, 'name' => str_repeat('L', 300)]], $rows);
        self::assertSame(Wire::ok(header: "\xFE"), $framer->next(), 'the end packet is left for next()');
        self::assertSame(4, $framer->sequence());
    }

    public function testRowsStopsAtTheLimitAndAtAnIncompletePacket(): void
    {
        $bytes = Wire::packets([Wire::textRow(['1', 'a']), Wire::textRow(['2', 'b']), Wire::textRow(['3', 'c'])]);
        $framer = new PacketFramer();
        $framer->packet("\x03");
        $framer->feed(substr($bytes, 0, -2));
        $rows = [];
        self::assertSame(1, $framer->rows(self::decoder(), $rows, 1));
        self::assertSame(1, $framer->rows(self::decoder(), $rows, 10), 'the third row has not fully arrived');
        $framer->feed(substr($bytes, -2));
        self::assertSame(1, $framer->rows(self::decoder(), $rows, 10));
        self::assertSame([1, 2, 3], array_column($rows, 'id'));
        self::assertSame(0, $framer->bufferedLength());
    }

    public function testRowsLeavesAnOutOfOrderPacketForNextToReport(): void
    {
        $framer = new PacketFramer();
        $framer->packet("\x03");
        $framer->feed(PacketFramer::frame(Wire::textRow(['1', 'a']), 1) . PacketFramer::frame(Wire::textRow(['2', 'b']), 3));
        $rows = [];
        self::assertSame(1, $framer->rows(self::decoder(), $rows, 10));
        $this->expectException(ProtocolException::class);
        $this->expectExceptionMessage('expected sequence id 2, got 3');
        $framer->next();
    }

    public function testRowsRejectsARowWhoseValuesOverrunItsPacket(): void
    {
        // The second value claims 5 bytes, the packet holds 1: the bytes after it (the next
        // packet's) must not be taken for the value.
        $framer = self::framer(["\x011\x05a", Wire::textRow(['2', 'b'])]);
        $rows = [];
        $this->expectException(ProtocolException::class);
        $framer->rows(self::decoder(), $rows, 10);
    }

    public function testPacketsTakesWholePacketsOnlyWhenAllHaveArrived(): void
    {
        $columns = [Wire::column('id', T::LONG), Wire::column('name', T::VAR_STRING)];
        $bytes = Wire::packets($columns);
        $framer = new PacketFramer();
        $framer->packet("\x03");
        $framer->feed(substr($bytes, 0, -1));
        self::assertNull($framer->packets(2));
        self::assertSame(1, $framer->sequence(), 'nothing taken');
        $framer->feed(substr($bytes, -1));
        $span = $framer->packets(2);
        self::assertSame($bytes, $span);
        self::assertSame($columns, PacketFramer::payloads($span));
        self::assertSame(3, $framer->sequence());
        self::assertSame(0, $framer->bufferedLength());
    }

    public function testPacketsLeavesAnErrorPacketForNext(): void
    {
        $err = Wire::err(1105, 'HY000', 'Unknown error');
        $framer = self::framer([Wire::column('id', T::LONG), $err]);
        self::assertNull($framer->packets(2));
        self::assertSame(Wire::column('id', T::LONG), $framer->next());
        self::assertSame($err, $framer->next());
    }

    /** @param list<string> $payloads the response to a command, from sequence id 1 */
    private static function framer(array $payloads): PacketFramer
    {
        $framer = new PacketFramer();
        $framer->packet("\x03"); // the command
        $framer->feed(Wire::packets($payloads));

        return $framer;
    }

    private static function decoder(): TextRowDecoder
    {
        return new TextRowDecoder([
            ColumnDefinition::parse(Wire::column('id', T::LONG)),
            ColumnDefinition::parse(Wire::column('name', T::VAR_STRING)),
        ]);
    }
}
