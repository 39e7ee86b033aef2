<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\WebSocket;

use Petrel\WebSocket\Internal\FrameEncoder;
use Petrel\WebSocket\Internal\FrameParser;
use Petrel\WebSocket\Internal\ProtocolException;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(FrameParser::class)]
#[CoversClass(FrameEncoder::class)]
final class FrameParserTest extends TestCase
{
    /** @return iterable<string, array{string, list<string>}> */
    public static function streams(): iterable
    {
        yield 'text' => [FrameHarness::clientFrame(1, 'héllo'), ['text:héllo']];
        yield 'binary with every byte' => [FrameHarness::clientFrame(2, \implode('', \array_map('chr', \range(0, 255)))), ['binary:' . \implode('', \array_map('chr', \range(0, 255)))]];
        yield 'empty text' => [FrameHarness::clientFrame(1, ''), ['text:']];
        yield '125, 126, 65535 and 65536 bytes' => [
            FrameHarness::clientFrame(2, \str_repeat('a', 125)) . FrameHarness::clientFrame(2, \str_repeat('b', 126))
                . FrameHarness::clientFrame(2, \str_repeat('c', 65535)) . FrameHarness::clientFrame(2, \str_repeat('d', 65536)),
            ['binary:' . \str_repeat('a', 125), 'binary:' . \str_repeat('b', 126), 'binary:' . \str_repeat('c', 65535), 'binary:' . \str_repeat('d', 65536)],
        ];
        yield 'fragments with a ping between them' => [
            FrameHarness::clientFrame(1, 'κό', false) . FrameHarness::clientFrame(9, 'p')
                . FrameHarness::clientFrame(0, '', false) . FrameHarness::clientFrame(0, 'σμε'),
            ['ping:p', 'text:κόσμε'],
        ];
        yield 'a character cut between fragments' => [
            FrameHarness::clientFrame(1, "\xF0\x9F", false) . FrameHarness::clientFrame(0, "\x98\x80", true),
            ["text:\u{1F600}"],
        ];
        yield 'non-minimal lengths are accepted' => [
            FrameHarness::clientFrame(1, 'abc', true, 0, 2) . FrameHarness::clientFrame(1, 'de', true, 0, 8),
            ['text:abc', 'text:de'],
        ];
        yield 'pong and close' => [
            FrameHarness::clientFrame(10, 'x') . FrameHarness::clientFrame(8, "\x03\xE8bye") . FrameHarness::clientFrame(8, ''),
            ['pong:x', 'close:1000:bye', 'close:1005:'],
        ];
    }

    /** @param list<string> $expected */
    #[DataProvider('streams')]
    public function testSameEventsWholeByteByByteAndInRandomSplits(string $bytes, array $expected): void
    {
        foreach (FrameHarness::splits($bytes) as $i => $pieces) {
            self::assertSame($expected, FrameHarness::feedPieces(FrameHarness::parser(), $pieces), "split #{$i}");
        }
    }

    public function testTheEncoderMasksClientFramesAndTheParserUnmasksThem(): void
    {
        $payload = \str_repeat('0123456789', 7000);
        $clientFrame = (new FrameEncoder(true))->frame(2, $payload);
        self::assertSame(0x80 | 127, \ord($clientFrame[1]));
        self::assertStringNotContainsString('0123456789', $clientFrame);
        foreach (FrameHarness::splits($clientFrame) as $pieces) {
            self::assertSame(['binary:' . $payload], FrameHarness::feedPieces(FrameHarness::parser(true), $pieces));
        }
        $serverFrame = (new FrameEncoder(false))->frame(1, 'hi');
        self::assertSame("\x81\x02hi", $serverFrame);
        self::assertSame(['text:hi'], FrameHarness::feedPieces(FrameHarness::parser(false), [$serverFrame]));
    }

    /** @return iterable<string, array{string, int, bool}> bytes, close code, parser on the server side */
    public static function violations(): iterable
    {
        yield 'unmasked client frame' => [FrameHarness::serverFrame(1, 'a'), 1002, true];
        yield 'masked server frame' => [FrameHarness::clientFrame(1, 'a'), 1002, false];
        yield '64-bit length with the top bit set' => ["\x82\xFF\x80\x00\x00\x00\x00\x00\x00\x01abcd", 1002, true];
        yield 'RSV1 without extension' => [FrameHarness::clientFrame(1, 'a', true, 4), 1002, true];
        yield 'RSV2' => [FrameHarness::clientFrame(1, 'a', true, 2), 1002, true];
        yield 'RSV3' => [FrameHarness::clientFrame(1, 'a', true, 1), 1002, true];
        foreach ([3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF] as $opcode) {
            yield \sprintf('opcode 0x%X', $opcode) => [FrameHarness::clientFrame($opcode, ''), 1002, true];
        }
        yield 'ping of 126 bytes' => [FrameHarness::clientFrame(9, \str_repeat('x', 126)), 1002, true];
        yield 'fragmented ping' => [FrameHarness::clientFrame(9, 'x', false), 1002, true];
        yield 'fragmented close' => [FrameHarness::clientFrame(8, "\x03\xE8", false), 1002, true];
        yield 'text while a message is open' => [FrameHarness::clientFrame(1, 'a', false) . FrameHarness::clientFrame(1, 'b'), 1002, true];
        yield 'binary while a message is open' => [FrameHarness::clientFrame(2, 'a', false) . FrameHarness::clientFrame(2, 'b'), 1002, true];
        yield 'continuation without a start' => [FrameHarness::clientFrame(0, 'a'), 1002, true];
        yield 'continuation after a finished message' => [FrameHarness::clientFrame(1, 'a') . FrameHarness::clientFrame(0, 'b'), 1002, true];
        yield 'close with a 1-byte payload' => [FrameHarness::clientFrame(8, "\x03"), 1002, true];
        yield 'close reason not UTF-8' => [FrameHarness::clientFrame(8, "\x03\xE8\xC3\x28"), 1007, true];
        yield 'invalid UTF-8 text' => [FrameHarness::clientFrame(1, "ab\xFFcd"), 1007, true];
        yield 'text ending inside a character' => [FrameHarness::clientFrame(1, "ab\xE2\x82"), 1007, true];
    }

    #[DataProvider('violations')]
    public function testViolationsFailWithTheRightCodeInEverySplit(string $bytes, int $code, bool $server): void
    {
        self::assertSame([$code], FrameHarness::errorCodes($bytes, static fn () => FrameHarness::parser($server)));
    }

    /** @return iterable<string, array{int, bool}> */
    public static function closeCodes(): iterable
    {
        foreach ([1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999] as $code) {
            yield "{$code}" => [$code, true];
        }
        foreach ([0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] as $code) {
            yield "{$code}" => [$code, false];
        }
    }

    #[DataProvider('closeCodes')]
    public function testCloseCodesAreValidated(int $code, bool $valid): void
    {
        $codes = FrameHarness::errorCodes(FrameHarness::clientFrame(8, \pack('n', $code) . 'why'), static fn () => FrameHarness::parser());
        self::assertSame([$valid ? null : 1002], $codes);
    }

    public function testAViolationKeepsFailing(): void
    {
        $parser = FrameHarness::parser();
        $parser->feed(FrameHarness::serverFrame(1, 'a'));
        for ($i = 0; $i < 2; $i++) {
            try {
                $parser->next();
                self::fail('expected a ProtocolException');
            } catch (ProtocolException $e) {
                self::assertSame(1002, $e->closeCode);
            }
        }
    }

    public function testTheHeaderIsJudgedBeforeTheRestOfTheFrameArrives(): void
    {
        $parser = FrameHarness::parser();
        $parser->feed("\x83\x85"); // opcode 3, masked, 5 bytes: mask and payload not there yet
        $this->expectException(ProtocolException::class);
        $parser->next();
    }

    public function testTooBigFramesAndMessagesFailWith1009BeforeTheirPayloadIsBuffered(): void
    {
        $parser = FrameHarness::parser(true, 1000, 600);
        $parser->feed(\substr(FrameHarness::clientFrame(2, \str_repeat('x', 601)), 0, 8)); // the header only
        try {
            $parser->next();
            self::fail('a 601-byte frame passed a 600-byte limit');
        } catch (ProtocolException $e) {
            self::assertSame(1009, $e->closeCode);
        }

        $fragments = FrameHarness::clientFrame(2, \str_repeat('x', 600), false) . FrameHarness::clientFrame(0, \str_repeat('x', 401));
        self::assertSame([1009], FrameHarness::errorCodes($fragments, static fn () => FrameHarness::parser(true, 1000, 600)));
        $fits = FrameHarness::clientFrame(2, \str_repeat('x', 600), false) . FrameHarness::clientFrame(0, \str_repeat('x', 400));
        self::assertSame([null], FrameHarness::errorCodes($fits, static fn () => FrameHarness::parser(true, 1000, 600)));

        $parser = FrameHarness::parser(true, 1000, 2000);
        $parser->feed(\substr(FrameHarness::clientFrame(1, \str_repeat('x', 1001)), 0, 8));
        $this->expectExceptionCode(1009);
        $parser->next();
    }

    public function testInvalidUtf8InTheFirstFragmentFailsBeforeTheMessageEnds(): void
    {
        $parser = FrameHarness::parser();
        $parser->feed(FrameHarness::clientFrame(1, "valid \xED\xA0\x80 surrogate", false));
        $this->expectExceptionCode(1007);
        $parser->next();
    }

    public function testInvalidUtf8FailsAtTheFirstBadByteOfAFrameStillArriving(): void
    {
        $frame = FrameHarness::clientFrame(1, "κόσμε\xF4\x90" . \str_repeat('a', 1000));
        $parser = FrameHarness::parser();
        $parser->feed(\substr($frame, 0, 8 + \strlen("κόσμε\xF4\x90"))); // header + up to the bad byte
        $this->expectExceptionCode(1007);
        $parser->next();
    }
}
