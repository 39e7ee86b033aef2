<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\HttpException;
use Petrel\Http\Internal\FieldLines;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

#[CoversClass(FieldLines::class)]
final class FieldLinesTest extends TestCase
{
    private const TCHAR = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

    public function testEveryByteIsClassifiedAsTheRfcSays(): void
    {
        for ($byte = 0; $byte < 256; ++$byte) {
            $char = \chr($byte);
            $control = $byte < 0x20 || $byte === 0x7F;
            self::assertSame(\str_contains(self::TCHAR, $char), FieldLines::isToken("a{$char}b"), "token, byte $byte");
            self::assertSame(!$control || $char === "\t", FieldLines::isLineSafe("a{$char}b"), "line, byte $byte");
            $inBlock = !$control || $char === "\t";
            self::assertSame($inBlock, FieldLines::isBlockSafe("a{$char}b\r\nc", 2), "block, byte $byte");
        }
        self::assertFalse(FieldLines::isToken(''));
        self::assertTrue(FieldLines::isBlockSafe("a\r\nb\r\nc", 3));
        self::assertFalse(FieldLines::isBlockSafe("a\r\nb\nc", 2), 'bare LF');
        self::assertFalse(FieldLines::isBlockSafe("a\r\nb\rc", 2), 'bare CR');
        self::assertFalse(FieldLines::isBlockSafe("a\n\rb", 1), 'LF CR is not a line end');
    }

    public function testParseTrimsOwsAndKeepsRepeatedFieldsInOrder(): void
    {
        $fields = FieldLines::parse(['ignored request line', "Accept:\t text/html \t", 'X-A:1', 'x-a: 2', 'Empty:'], 1);
        self::assertSame(['accept' => ['text/html'], 'x-a' => ['1', '2'], 'empty' => ['']], $fields);
    }

    public function testParseRejectsMalformedLines(): void
    {
        foreach ([' folded: x', 'Name : x', 'No colon', ': x', 'Bad(name): x', "Caf\xc3\xa9: x"] as $line) {
            try {
                FieldLines::parse([$line], 0);
                self::fail("accepted: $line");
            } catch (HttpException $e) {
                self::assertSame(400, $e->getStatus());
            }
        }
    }

    public function testTokens(): void
    {
        self::assertSame(['keep-alive', 'upgrade'], FieldLines::tokens(' Keep-Alive ,, UPGRADE,'));
        self::assertSame([], FieldLines::tokens(''));
    }
}
