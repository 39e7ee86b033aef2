<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\WebSocket;

use Petrel\WebSocket\Internal\Utf8Validator;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/** Autobahn 6.x-style cases, checked whole, split at every position, and byte by byte. */
#[CoversClass(Utf8Validator::class)]
final class Utf8ValidatorTest extends TestCase
{
    /** @return iterable<string, array{string}> */
    public static function valid(): iterable
    {
        yield 'ascii' => ['Hello-µ@ßöäüàá-UTF-8!!'];
        yield 'greek' => ['κόσμε'];
        yield 'first of each length' => ["\x00\u{80}\u{800}\u{10000}"];
        yield 'last of each length' => ["\x7F\u{7FF}\u{FFFF}\u{10FFFF}"];
        yield 'around the surrogates' => ["\u{D7FF}\u{E000}\u{FFFD}"];
        yield 'noncharacters are valid' => ["\u{FFFE}\u{FFFF}\u{10FFFE}"];
        yield 'empty' => [''];
    }

    /** @return iterable<string, array{string}> */
    public static function invalid(): iterable
    {
        yield 'overlong slash (2 bytes)' => ["a\xC0\xAF"];
        yield 'overlong slash (3 bytes)' => ["a\xE0\x80\xAF"];
        yield 'overlong slash (4 bytes)' => ["a\xF0\x80\x80\xAF"];
        yield 'overlong max 2-byte' => ["\xC1\xBF"];
        yield 'overlong max 3-byte' => ["\xE0\x9F\xBF"];
        yield 'overlong max 4-byte' => ["\xF0\x8F\xBF\xBF"];
        yield 'high surrogate' => ["\xED\xA0\x80"];
        yield 'low surrogate' => ["\xED\xBF\xBF"];
        yield 'surrogate pair' => ["\xED\xA0\x80\xED\xB0\x80"];
        yield 'U+110000' => ["\xF4\x90\x80\x80"];
        yield 'F5 lead' => ["\xF5\x80\x80\x80"];
        yield '5-byte form' => ["\xF8\x88\x80\x80\x80"];
        yield 'FE and FF' => ["\xFE\xFF"];
        yield 'lone continuation' => ["ab\x80cd"];
        yield 'truncated 2-byte in the middle' => ["\xC3 "];
        yield 'truncated 4-byte at the end' => ["κόσμε\xF0\x9F\x98"];
        yield 'truncated 3-byte at the end' => ["\xE2\x82"];
        yield 'lead then lead' => ["\xE2\xE2\x82\xAC"];
        yield 'κόσμε, then F4 90 (Autobahn 6.4.2)' => ["κόσμε\xF4\x90\x80\x80edited"];
    }

    #[DataProvider('valid')]
    public function testValidTextPassesInEverySplit(string $text): void
    {
        foreach (self::splits($text) as $pieces) {
            $validator = new Utf8Validator();
            foreach ($pieces as $piece) {
                self::assertTrue($validator->push($piece), \bin2hex($piece));
            }
            self::assertTrue($validator->finish());
        }
    }

    #[DataProvider('invalid')]
    public function testInvalidTextFailsInEverySplit(string $text): void
    {
        self::assertNotSame(1, \preg_match('//u', $text), 'the case itself must be invalid UTF-8');
        foreach (self::splits($text) as $pieces) {
            $validator = new Utf8Validator();
            $ok = true;
            foreach ($pieces as $piece) {
                $ok = $ok && $validator->push($piece);
            }
            self::assertFalse($ok && $validator->finish(), \implode('|', \array_map('bin2hex', $pieces)));
        }
    }

    /** @return iterable<string, array{list<string>, int}> pieces, index of the piece that must fail */
    public static function failFast(): iterable
    {
        yield 'F4 90: above U+10FFFF before the character ends' => [["κόσμε\xF4", "\x90", "\x80\x80edited"], 1];
        yield 'ED A0: a surrogate before the character ends' => [["ok\xED", "\xA0", "\x80"], 1];
        yield 'E0 80: overlong before the character ends' => [["\xE0\x80", "\x80"], 0];
        yield 'C0: never a valid lead' => [["abc\xC0", "\xAF"], 0];
        yield 'F5: never a valid lead' => [["\xF5"], 0];
    }

    /** @param list<string> $pieces */
    #[DataProvider('failFast')]
    public function testFailsAtThePieceWhereTheTextBecameInvalid(array $pieces, int $failing): void
    {
        $validator = new Utf8Validator();
        foreach ($pieces as $i => $piece) {
            self::assertSame($i !== $failing, $validator->push($piece), "piece #{$i}");
            if ($i === $failing) {
                return;
            }
        }
    }

    /** @return list<list<string>> whole, every 2-way split, byte by byte */
    private static function splits(string $text): array
    {
        $splits = [[$text], \str_split($text)];
        for ($i = 1; $i < \strlen($text); $i++) {
            $splits[] = [\substr($text, 0, $i), \substr($text, $i)];
        }

        return $splits;
    }
}
