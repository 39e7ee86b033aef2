<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\WebSocket;

use Petrel\WebSocket\HandshakeException;
use Petrel\WebSocket\Internal\Deflater;
use Petrel\WebSocket\Internal\FrameParser;
use Petrel\WebSocket\Internal\Inflater;
use Petrel\WebSocket\Internal\PerMessageDeflate;
use Petrel\WebSocket\Internal\ProtocolException;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

#[CoversClass(PerMessageDeflate::class)]
#[CoversClass(Deflater::class)]
#[CoversClass(Inflater::class)]
final class PerMessageDeflateTest extends TestCase
{
    /** @return iterable<string, array{list<string>, string|null}> offers, answer (null: declined) */
    public static function offers(): iterable
    {
        yield 'plain' => [['permessage-deflate'], 'permessage-deflate'];
        yield 'what browsers send' => [['permessage-deflate; client_max_window_bits'], 'permessage-deflate'];
        yield 'no context takeover both ways' => [
            ['permessage-deflate; server_no_context_takeover; client_no_context_takeover'],
            'permessage-deflate; server_no_context_takeover; client_no_context_takeover',
        ];
        yield 'server window' => [['permessage-deflate; server_max_window_bits=10'], 'permessage-deflate; server_max_window_bits=10'];
        yield 'quoted value, any case' => [['Permessage-Deflate; Server_Max_Window_Bits="12"'], 'permessage-deflate; server_max_window_bits=12'];
        yield 'client window with a value' => [['permessage-deflate; client_max_window_bits=9'], 'permessage-deflate'];
        yield 'first offer invalid, second taken' => [
            ['permessage-deflate; server_max_window_bits=16, permessage-deflate; client_no_context_takeover'],
            'permessage-deflate; client_no_context_takeover',
        ];
        yield 'offers in two header lines' => [['x-webkit-deflate-frame', 'permessage-deflate'], 'permessage-deflate'];
        yield 'server window without value' => [['permessage-deflate; server_max_window_bits'], null];
        yield 'window 7' => [['permessage-deflate; client_max_window_bits=7'], null];
        yield 'unknown parameter' => [['permessage-deflate; foo'], null];
        yield 'duplicate parameter' => [['permessage-deflate; server_no_context_takeover; server_no_context_takeover'], null];
        yield 'flag with a value' => [['permessage-deflate; server_no_context_takeover=1'], null];
        yield 'other extension only' => [['x-webkit-deflate-frame'], null];
        yield 'nothing' => [[], null];
    }

    /** @param list<string> $offers */
    #[DataProvider('offers')]
    public function testTheServerAcceptsTheFirstValidOffer(array $offers, ?string $answer): void
    {
        self::assertSame($answer, PerMessageDeflate::negotiate($offers)?->response());
    }

    public function testTheClientValidatesTheAnswer(): void
    {
        $agreed = PerMessageDeflate::fromResponse('permessage-deflate; client_max_window_bits=10; server_no_context_takeover');
        self::assertSame(10, $agreed->clientMaxWindowBits);
        self::assertTrue($agreed->serverNoContextTakeover);
        foreach (['x-foo', 'permessage-deflate; bogus', 'permessage-deflate, permessage-deflate'] as $bad) {
            try {
                PerMessageDeflate::fromResponse($bad);
                self::fail("accepted: {$bad}");
            } catch (HandshakeException) {
                $this->addToAssertionCount(1);
            }
        }
    }

    public function testAWindowOf8MeansSendingUncompressed(): void
    {
        $agreed = PerMessageDeflate::negotiate(['permessage-deflate; server_max_window_bits=8']);
        self::assertNotNull($agreed);
        self::assertNull($agreed->deflater(true));
        self::assertNotNull($agreed->deflater(false));
    }

    /** @return iterable<string, array{bool}> */
    public static function takeover(): iterable
    {
        yield 'context takeover' => [false];
        yield 'no context takeover' => [true];
    }

    #[DataProvider('takeover')]
    public function testRoundTripsThroughFramesWithRsv1OnTheFirstFrameOnly(bool $noTakeover): void
    {
        $deflater = new Deflater(15, $noTakeover);
        $messages = ['hello hello hello hello', '', \str_repeat('κόσμε ', 5000), 'hello hello hello hello'];
        $stream = '';
        $sizes = [];
        foreach ($messages as $message) {
            $compressed = $deflater->compress($message);
            $sizes[] = \strlen($compressed);
            // The compressed payload in three frames: RSV1 on the first only.
            $third = \intdiv(\strlen($compressed), 3);
            $stream .= FrameHarness::clientFrame(1, \substr($compressed, 0, $third), false, 4)
                . FrameHarness::clientFrame(0, \substr($compressed, $third, $third), false)
                . FrameHarness::clientFrame(0, \substr($compressed, 2 * $third));
        }
        if (!$noTakeover) {
            self::assertLessThan($sizes[0], $sizes[3], 'with context takeover a repeat refers back to the first message');
        } else {
            self::assertSame($sizes[0], $sizes[3]);
        }
        $expected = \array_map(static fn (string $m) => "text:{$m}", $messages);
        foreach ([[$stream], \str_split($stream, 7)] as $pieces) {
            $parser = new FrameParser(true, 1 << 24, 1 << 24, new Inflater($noTakeover));
            self::assertSame($expected, FrameHarness::feedPieces($parser, $pieces));
        }
    }

    /**
     * RFC 7692 §7.2.3.4: a sender may end each message's deflate stream with a BFINAL
     * block (then pad with 0x00, §7.2.1). With context takeover negotiated, the second such
     * message failed 1007: zlib took the pad and the tail for a new stream's first bytes.
     */
    public function testMessagesEndedWithBfinalBlocksInflateOneAfterAnother(): void
    {
        $final = static function (string $message): string {
            $context = \deflate_init(\ZLIB_ENCODING_RAW);
            self::assertNotFalse($context);

            return \deflate_add($context, $message, \ZLIB_FINISH) . "\x00";
        };
        // The RFC's own example bytes ("Hello"), then messages made the same way, the last
        // in three frames.
        $stream = FrameHarness::clientFrame(1, "\xf3\x48\xcd\xc9\xc9\x07\x00\x00", true, 4)
            . FrameHarness::clientFrame(1, $final('first'), true, 4)
            . FrameHarness::clientFrame(1, $final('second'), true, 4);
        $third = $final(\str_repeat('third ', 100));
        $stream .= FrameHarness::clientFrame(1, \substr($third, 0, 5), false, 4)
            . FrameHarness::clientFrame(0, \substr($third, 5, 5), false)
            . FrameHarness::clientFrame(0, \substr($third, 10));
        $expected = ['text:Hello', 'text:first', 'text:second', 'text:' . \str_repeat('third ', 100)];
        foreach ([false, true] as $noTakeover) {
            foreach ([[$stream], \str_split($stream, 3)] as $pieces) {
                $parser = new FrameParser(true, 1 << 24, 1 << 24, new Inflater($noTakeover));
                self::assertSame($expected, FrameHarness::feedPieces($parser, $pieces));
            }
        }
    }

    public function testRsv1IsRefusedOnContinuationAndControlFrames(): void
    {
        $make = static fn () => FrameHarness::parser(true, 1 << 24, 1 << 24, true);
        self::assertSame([1002], FrameHarness::errorCodes(FrameHarness::clientFrame(1, 'a', false) . FrameHarness::clientFrame(0, 'b', true, 4), $make));
        self::assertSame([1002], FrameHarness::errorCodes(FrameHarness::clientFrame(9, 'a', true, 4), $make));
    }

    public function testCorruptCompressedDataFailsWith1007(): void
    {
        $make = static fn () => FrameHarness::parser(true, 1 << 24, 1 << 24, true);
        self::assertSame([1007], FrameHarness::errorCodes(FrameHarness::clientFrame(2, "\xFF\xFF\xFF\xFF", true, 4), $make));
    }

    public function testInvalidUtf8InsideACompressedTextFailsWith1007(): void
    {
        $compressed = (new Deflater(15, true))->compress("ok \xED\xA0\x80");
        $make = static fn () => FrameHarness::parser(true, 1 << 24, 1 << 24, true);
        self::assertSame([1007], FrameHarness::errorCodes(FrameHarness::clientFrame(1, $compressed, true, 4), $make));
    }

    public function testAZipBombIsStoppedWith1009WithoutInflatingItAll(): void
    {
        // 256 MiB of zeros, deflated piece by piece (never held whole): ~250 KiB on the wire.
        $context = \deflate_init(\ZLIB_ENCODING_RAW, ['level' => 9]);
        self::assertNotFalse($context);
        $compressed = '';
        $zeros = \str_repeat("\0", 1 << 20);
        for ($i = 0; $i < 256; $i++) {
            $compressed .= \deflate_add($context, $zeros, \ZLIB_NO_FLUSH);
        }
        $compressed = \substr($compressed . \deflate_add($context, '', \ZLIB_SYNC_FLUSH), 0, -4);
        unset($zeros);
        self::assertLessThan(1 << 20, \strlen($compressed));

        $parser = new FrameParser(true, 1 << 20, 1 << 24, new Inflater(false));
        $frame = FrameHarness::clientFrame(2, $compressed, true, 4);
        \memory_reset_peak_usage();
        $before = \memory_get_usage();
        $parser->feed($frame);
        try {
            $parser->next();
            self::fail('the bomb was inflated');
        } catch (ProtocolException $e) {
            self::assertSame(1009, $e->closeCode);
        }
        self::assertLessThan($before + \strlen($frame) * 3 + (8 << 20), \memory_get_peak_usage(), 'inflated far past the 1 MiB limit');
    }
}
