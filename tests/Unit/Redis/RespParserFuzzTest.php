<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Redis;

use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;
use Petrel\Redis\Internal\RespParser;
use Petrel\Redis\Internal\RespScalars;
use Random\Engine\Mt19937;
use Random\Randomizer;

/**
 * Seeded fuzzing, bounded to about a second: random RESP-like bytes and mutations of
 * valid replies. Only RedisProtocolException may escape (anything else fails the test),
 * no input may loop, values have the documented types, and the outcome does not
 * depend on how the bytes are split, nor on whether they were given to take() or feed().
 */
#[CoversClass(RespParser::class)]
#[CoversClass(RespScalars::class)]
final class RespParserFuzzTest extends TestCase
{
    private const SEED = 20240601;
    private const BUDGET_SECONDS = 1.0;
    private const ALPHABET = "+-:\$*%~>|_#,(!=;.?\r\n\r\n\r\n0123456789-1-1tfnaiERRxyz \0\xff";
    private const TOKENS = [
        '9223372036854775807', '9223372036854775808', '-9223372036854775808', '4294967295', '4294967296',
        '1048577', 'inf', 'nan', 'txt:', "\r\n", '-1',
    ];

    public function testRandomAndMutatedInput(): void
    {
        $random = new Randomizer(new Mt19937(self::SEED));
        $corpus = self::corpus();
        $deadline = hrtime(true) + (int) (self::BUDGET_SECONDS * 1e9);
        $runs = 0;
        do {
            $input = $random->getInt(0, 3) === 0
                ? self::randomBytes($random, $random->getInt(0, 120))
                : self::mutate($random, $corpus[$random->getInt(0, count($corpus) - 1)]);
            $this->check($input, $random->getInt(1, 1 << 30));
            $runs++;
        } while (hrtime(true) < $deadline);

        self::assertGreaterThan(100, $runs);
    }

    private function check(string $input, int $splitSeed): void
    {
        $whole = $this->outcome([$input]);
        $split = $this->outcome(RespFeeder::split($input, $splitSeed, 5));

        self::assertSame($whole, $split, 'whole vs split outcome differs for ' . json_encode(bin2hex($input)));
        $taken = RespParserTakeTest::takeOutcome([$input, $input], self::parser());
        self::assertSame($this->outcome([$input, $input]), $taken, 'take() vs feed() outcome differs for ' . json_encode(bin2hex($input)));
    }

    /**
     * @param list<string> $chunks
     * @return array{replies: list<mixed>, error: ?string}
     */
    private function outcome(array $chunks): array
    {
        $outcome = RespFeeder::outcome($chunks, self::parser());
        // Every reply takes at least 3 bytes ("_\r\n"): more replies would mean a loop.
        self::assertLessThanOrEqual(intdiv(strlen(implode('', $chunks)), 3), count($outcome['replies']));
        array_walk_recursive($outcome['replies'], static function (mixed $leaf): void {
            self::assertTrue($leaf === null || is_scalar($leaf), 'unexpected value type ' . get_debug_type($leaf));
        });

        return $outcome;
    }

    private static function parser(): RespParser
    {
        return new RespParser(maxBulkLength: 1 << 20, maxDepth: 16);
    }

    /** @return list<string> valid streams to mutate */
    private static function corpus(): array
    {
        $corpus = [];
        foreach (RespParserTypesTest::replies() as [$wire]) {
            $corpus[] = $wire;
        }
        foreach (RespParserAggregateTest::streams() as [$wire]) {
            $corpus[] = $wire;
        }

        return $corpus;
    }

    /** Random bytes from the alphabet, with now and then a token that is a limit's edge. */
    private static function randomBytes(Randomizer $random, int $length): string
    {
        $bytes = '';
        for ($i = 0; $i < $length; $i++) {
            $bytes .= $random->getInt(0, 15) === 0
                ? self::TOKENS[$random->getInt(0, count(self::TOKENS) - 1)]
                : self::ALPHABET[$random->getInt(0, strlen(self::ALPHABET) - 1)];
        }

        return $bytes;
    }

    private static function mutate(Randomizer $random, string $wire): string
    {
        for ($n = $random->getInt(1, 4); $n > 0; $n--) {
            $at = $random->getInt(0, strlen($wire));
            $wire = match ($random->getInt(0, 4)) {
                0 => substr($wire, 0, $at) . self::randomBytes($random, 1) . substr($wire, $at + 1),
                1 => substr($wire, 0, $at) . self::randomBytes($random, $random->getInt(1, 4)) . substr($wire, $at),
                2 => substr($wire, 0, $at) . substr($wire, $at + $random->getInt(1, 3)),
                3 => $wire . substr($wire, $at),
                default => substr($wire, 0, $at),
            };
        }

        return $wire;
    }
}
