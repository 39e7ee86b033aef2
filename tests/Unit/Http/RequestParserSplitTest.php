<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\HttpException;
use Petrel\Http\HttpLimits;
use Petrel\Http\Internal\ChunkedDecoder;
use Petrel\Http\Internal\HeadSyntax;
use Petrel\Http\Internal\RequestParser;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;
use Random\Engine\Mt19937;
use Random\Randomizer;

/**
 * What the parser makes of a byte stream — the requests and the final error status — is a
 * function of the bytes alone: fed whole, byte by byte or in any split, the same. Checked
 * for the inputs that broke it once, then for random and mutated inputs (ParserFuzzCorpus,
 * random limits too) for BUDGET_SECONDS. A failure prints the seed (PETREL_FUZZ_SEED
 * replays it) and the input shrunk to a minimal one that still fails.
 */
#[CoversClass(RequestParser::class)]
#[CoversClass(HeadSyntax::class)]
#[CoversClass(ChunkedDecoder::class)]
final class RequestParserSplitTest extends TestCase
{
    private const BUDGET_SECONDS = 1.5;

    /** @return iterable<string, array{string, 1?: HttpLimits}> */
    public static function onceSplitDependent(): iterable
    {
        $small = (new HttpLimits())->withMaxRequestLineBytes(100)->withMaxHeaderBytes(300);
        // 505 whole (a two-part line ending in a version), 400 split (not a method token).
        yield 'non-token method, bad version' => ["CO:443 HTTP/1.9\r\nHost: h\r\n\r\n"];
        yield 'binary method, bad version' => ["\xffPOST /f HTTP/1.9\r\nHost: a\r\n\r\n"];
        // 400 whole (control character), 414 split (request line over the limit first).
        yield 'long request line with a VT' => ["GET /" . \str_repeat('a', 120) . " HTTP/1.1\r\x0bX: y\r\n\r\n", $small];
        // 414 whole, 400 split (not a method token).
        yield 'long request line, bad method' => ["C\xf8h:443 /" . \str_repeat('a', 120) . " HTTP/1.1\r\nHost: h\r\n\r\n", $small];
        // 431 whole, 400 split.
        yield 'large head, bad method' => ["\x10OST /f HTTP/1.1\r\nX: " . \str_repeat('a', 400) . "\r\n\r\n", $small];
        // Head limit below the request-line limit: 431 comes first.
        yield 'head limit below line limit' => [
            'GET /' . \str_repeat('a', 40) . " HTTP/1.1\r\n\r\n",
            (new HttpLimits())->withMaxRequestLineBytes(30)->withMaxHeaderBytes(31),
        ];
        // A chunk-size line or trailer section that fits must not fail when its CRLF is split.
        yield 'chunk-size line of exactly the limit' => [
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1;"
            . \str_repeat('e', ChunkedDecoder::MAX_SIZE_LINE_BYTES - 2) . "\r\nx\r\n0\r\n\r\n",
        ];
        yield 'trailer section of exactly the limit' => [
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: " . \str_repeat('t', 100 - 3) . "\r\n\r\n",
            (new HttpLimits())->withMaxHeaderBytes(100),
        ];
        yield 'trailer section with a bare CR near the limit' => [
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: " . \str_repeat('t', 95) . "\r<\r\n\r\n",
            (new HttpLimits())->withMaxHeaderBytes(100),
        ];
    }

    #[DataProvider('onceSplitDependent')]
    public function testKnownCasesDoNotDependOnTheSplit(string $input, ?HttpLimits $limits = null): void
    {
        $limits ??= new HttpLimits();
        $failure = self::splitDependence($input, $limits, 1);
        self::assertNull($failure, (string) $failure);
    }

    public function testRandomInputsDoNotDependOnTheSplit(): void
    {
        $seed = (int) (\getenv('PETREL_FUZZ_SEED') ?: \random_int(1, \PHP_INT_MAX));
        $random = new Randomizer(new Mt19937($seed));
        $deadline = \hrtime(true) + (int) (self::BUDGET_SECONDS * 1e9);
        for ($case = 1; \hrtime(true) < $deadline; ++$case) {
            $limits = ParserFuzzCorpus::limits($random);
            $input = ParserFuzzCorpus::generate($random);
            $splitSeed = $random->getInt(1, 1 << 30);
            $failure = self::splitDependence($input, $limits, $splitSeed);
            if ($failure !== null) {
                $minimal = self::shrink($input, $limits, $splitSeed);
                self::fail(\sprintf(
                    "Split-dependent outcome, seed %d (replay: PETREL_FUZZ_SEED=%d), case %d, limits %s\n"
                    . "minimal input: %s\n%s\noriginal input: %s",
                    $seed,
                    $seed,
                    $case,
                    \json_encode(\get_object_vars($limits)),
                    self::show($minimal),
                    self::splitDependence($minimal, $limits, $splitSeed),
                    self::show($input),
                ));
            }
        }
        self::assertGreaterThan(100, $case, 'enough cases ran');
    }

    /** A description of how the outcomes differ between splits, or null when they agree. */
    private static function splitDependence(string $input, HttpLimits $limits, int $splitSeed): ?string
    {
        $splits = [
            'whole' => [$input],
            'byte by byte' => \str_split($input),
            'random pieces of 1-5' => ParserHarness::randomSplit($input, $splitSeed, 5),
            'random pieces of 1-64' => ParserHarness::randomSplit($input, $splitSeed + 1, 64),
        ];
        $expected = self::outcome($splits['whole'], $limits);
        foreach ($splits as $name => $pieces) {
            $outcome = self::outcome($pieces, $limits);
            if ($outcome !== $expected) {
                return \sprintf("whole: %s\n%s: %s", self::summary($expected), $name, self::summary($outcome));
            }
        }

        return null;
    }

    /**
     * The requests parsed, then the error status or 'incomplete'.
     *
     * @param list<string> $pieces
     * @return list<mixed>
     */
    private static function outcome(array $pieces, HttpLimits $limits): array
    {
        $parser = new RequestParser($limits);
        $outcome = [];
        try {
            foreach ($pieces as $piece) {
                $parser->feed($piece);
                while (($request = $parser->next()) !== null) {
                    $outcome[] = ParserHarness::describe($request);
                }
            }
        } catch (HttpException $e) {
            $outcome[] = $e->getStatus();

            return $outcome;
        }
        $outcome[] = 'incomplete';

        return $outcome;
    }

    /** @param list<mixed> $outcome */
    private static function summary(array $outcome): string
    {
        return \count($outcome) - 1 . ' request(s), then ' . \json_encode(\end($outcome));
    }

    /** Removes pieces of the input while it still fails, big pieces first (bounded in time). */
    private static function shrink(string $input, HttpLimits $limits, int $splitSeed): string
    {
        $deadline = \hrtime(true) + 2_000_000_000;
        for ($size = \intdiv(\strlen($input), 2); $size >= 1 && \hrtime(true) < $deadline; $size = \intdiv($size, 2)) {
            for ($at = 0; $at < \strlen($input) && \hrtime(true) < $deadline;) {
                $smaller = \substr_replace($input, '', $at, $size);
                if ($smaller !== '' && self::splitDependence($smaller, $limits, $splitSeed) !== null) {
                    $input = $smaller;
                } else {
                    $at += $size;
                }
            }
        }

        return $input;
    }

    private static function show(string $bytes): string
    {
        return (string) \json_encode(\mb_convert_encoding($bytes, 'UTF-8', 'ISO-8859-1'));
    }
}
