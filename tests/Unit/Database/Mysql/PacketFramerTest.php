<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Database\Mysql;

use Petrel\Database\Mysql\Internal\PacketFramer;
use Petrel\Database\Mysql\ProtocolException;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\Attributes\TestWith;
use PHPUnit\Framework\TestCase;

#[CoversClass(PacketFramer::class)]
final class PacketFramerTest extends TestCase
{
    public function testFramesWithLittleEndianLengthAndSequenceId(): void
    {
        self::assertSame("\x03\x00\x00\x07abc", PacketFramer::frame('abc', 7));
        self::assertSame("\x00\x00\x00\x00", PacketFramer::frame('', 0));
        self::assertSame("\x00\x01\x00\xFF" . str_repeat('x', 256), PacketFramer::frame(str_repeat('x', 256), 255));
    }

    /** @return iterable<string, array{bool}> */
    public static function feeding(): iterable
    {
        yield 'whole' => [false];
        yield 'byte by byte' => [true];
    }

    #[DataProvider('feeding')]
    public function testReadsManyPacketsFedWholeOrByteByByte(bool $byteByByte): void
    {
        $payloads = ['', 'a', str_repeat('b', 300), "\x00\xFF\xFE", str_repeat('c', 70000)];
        $framer = new PacketFramer();
        $out = [];
        foreach (Wire::chunks(Wire::packets($payloads, 0), $byteByByte) as $chunk) {
            $framer->feed($chunk);
            while (($payload = $framer->next()) !== null) {
                $out[] = $payload;
            }
        }
        self::assertSame($payloads, $out);
        self::assertSame(5, $framer->sequence());
        self::assertSame(0, $framer->bufferedLength());
    }

    public function testWaitsForIncompletePackets(): void
    {
        $framer = new PacketFramer();
        $framer->feed("\x05\x00");
        self::assertNull($framer->next());
        $framer->feed("\x00\x00hel");
        self::assertNull($framer->next());
        self::assertSame(7, $framer->bufferedLength());
        $framer->feed("lo\x01\x00\x00\x01");
        self::assertSame('hello', $framer->next());
        self::assertNull($framer->next());
        $framer->feed('!');
        self::assertSame('!', $framer->next());
    }

    public function testRejectsOutOfOrderSequenceIds(): void
    {
        $framer = new PacketFramer();
        $framer->feed(PacketFramer::frame('x', 0) . PacketFramer::frame('y', 2));
        self::assertSame('x', $framer->next());
        $this->expectException(ProtocolException::class);
        $this->expectExceptionMessage('expected sequence id 1, got 2');
        $framer->next();
    }

    public function testSequenceIsSharedByBothDirectionsAndWraps(): void
    {
        $framer = new PacketFramer();
        $framer->feed(PacketFramer::frame('greeting', 0));
        self::assertSame('greeting', $framer->next());
        self::assertSame("\x05\x00\x00\x01login", $framer->packet('login'));
        $framer->feed(PacketFramer::frame('ok', 2));
        self::assertSame('ok', $framer->next());

        $framer->resetSequence();
        for ($i = 0; $i < 255; ++$i) {
            $framer->packet('');
        }
        self::assertSame(255, $framer->sequence());
        self::assertSame("\x00\x00\x00\xFF", $framer->packet(''));
        self::assertSame(0, $framer->sequence());
    }

    /** @param list<int> $chunkLengths */
    #[TestWith([0xFFFFFF - 1, [0xFFFFFE]])]
    #[TestWith([0xFFFFFF, [0xFFFFFF, 0]])]
    #[TestWith([0xFFFFFF + 10, [0xFFFFFF, 10]])]
    #[TestWith([2 * 0xFFFFFF, [0xFFFFFF, 0xFFFFFF, 0]])]
    public function testSplitsAndJoinsPayloadsAt16MiB(int $length, array $chunkLengths): void
    {
        $payload = str_repeat('0123456789abcdef', intdiv($length, 16) + 1);
        $payload = substr($payload, 0, $length);
        $framer = new PacketFramer();
        $framer->resetSequence();
        $framed = $framer->packet($payload);
        self::assertSame(\count($chunkLengths) % 256, $framer->sequence());

        // Walk the frames by hand: full chunks carry exactly 0xFFFFFF bytes.
        $offset = 0;
        foreach ($chunkLengths as $sequence => $chunkLength) {
            $header = unpack('Vlength', substr($framed, $offset, 3) . "\0");
            self::assertIsArray($header);
            self::assertSame($chunkLength, $header['length']);
            self::assertSame($sequence, \ord($framed[$offset + 3]));
            $offset += 4 + $chunkLength;
        }
        self::assertSame(\strlen($framed), $offset);

        // Read it back, fed in odd-sized chunks.
        $reader = new PacketFramer();
        $result = null;
        foreach (str_split($framed, 999_983) as $chunk) {
            $reader->feed($chunk);
            $result ??= $reader->next();
        }
        self::assertNotNull($result);
        self::assertSame(\strlen($payload), \strlen($result));
        self::assertTrue($result === $payload);
        self::assertSame(\count($chunkLengths) % 256, $reader->sequence());
    }

    public function testPayloadThatIsExactlyOneChunkWaitsForTheEmptyTerminator(): void
    {
        $payload = str_repeat('z', 0xFFFFFF);
        $framed = PacketFramer::frame($payload, 0);
        $framer = new PacketFramer();
        $framer->feed(substr($framed, 0, -4)); // all but the empty closing packet
        self::assertNull($framer->next());
        $framer->feed(substr($framed, -4));
        self::assertSame(0xFFFFFF, \strlen((string) $framer->next()));
    }

    public function testEnforcesThePayloadLimitBeforeBuffering(): void
    {
        $framer = new PacketFramer(maxPayload: 10);
        $framer->feed("\x0B\x00\x00\x00"); // announces 11 bytes; none of them has arrived
        $this->expectException(ProtocolException::class);
        $framer->next();
    }

    public function testPayloadLimitCoversJoinedChunks(): void
    {
        $framer = new PacketFramer(maxPayload: 0xFFFFFF + 5);
        $framer->feed(PacketFramer::frame(str_repeat('a', 0xFFFFFF + 6), 0));
        $this->expectException(ProtocolException::class);
        $framer->next();
    }
}
