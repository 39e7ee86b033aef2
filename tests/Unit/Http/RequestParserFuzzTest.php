<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\HttpException;
use Petrel\Http\HttpLimits;
use Petrel\Http\Internal\RequestParser;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;
use Random\Engine\Mt19937;
use Random\Randomizer;

/**
 * Random bytes and mutations of valid requests, fed in random splits for about two
 * seconds. Only HttpException may escape, every case must finish quickly and memory must
 * stay bounded. The seed is in every failure message; PETREL_FUZZ_SEED replays one.
 */
#[CoversClass(RequestParser::class)]
final class RequestParserFuzzTest extends TestCase
{
    private const BUDGET_SECONDS = 2.0;

    private const SEEDS = [
        "GET /a/b?c=d HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nCookie: a=1; b=2\r\n\r\n",
        "POST /form HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 7\r\n\r\na=1&b=2",
        "PUT /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n"
            . "4;ext=1\r\nWiki\r\n5\r\npedia\r\n0\r\nX-Trailer: yes\r\n\r\n",
        "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nHEAD /x HTTP/1.1\r\nHost: b\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\nCONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n",
    ];

    private const INTERESTING = [
        "\r\n", "\r", "\n", "\0", ' ', "\t", ':', ';', ',', '0', '9', 'f', '-', "\x7f", "\xff", '"',
        "\r\n\r\n", 'Content-Length: 5', 'Transfer-Encoding: chunked', 'ffffffffffffffffff', 'HTTP/1.1', '999999',
    ];

    public function testOnlyHttpExceptionEscapesAndMemoryStaysBounded(): void
    {
        $seed = (int) (\getenv('PETREL_FUZZ_SEED') ?: \random_int(1, \PHP_INT_MAX));
        $random = new Randomizer(new Mt19937($seed));
        $limits = (new HttpLimits())->withMaxBodyBytes(1 << 20)->withBodyMemoryBytes(4096);
        $baseline = \memory_get_usage();
        $deadline = \hrtime(true) + (int) (self::BUDGET_SECONDS * 1e9);
        $cases = 0;
        $rejected = 0;
        $parsed = 0;

        \set_error_handler(static function (int $severity, string $message) use ($seed): never {
            throw new \ErrorException("PHP error with fuzz seed $seed: $message", 0, $severity);
        });
        try {
            while (\hrtime(true) < $deadline) {
                ++$cases;
                $input = $this->generate($random);
                $start = \hrtime(true);
                $parser = new RequestParser($limits);
                try {
                    foreach ($this->split($random, $input) as $piece) {
                        $parser->feed($piece);
                        for ($i = 0; $parser->next() !== null; ++$i) {
                            ++$parsed;
                            self::assertLessThan(\strlen($input), $i, "more requests than bytes (seed $seed)");
                        }
                    }
                } catch (HttpException $e) {
                    ++$rejected;
                    self::assertContains($e->getStatus(), [400, 413, 414, 431, 501, 505], "seed $seed");
                } catch (\Throwable $e) {
                    self::fail(\sprintf("Fuzz seed %d, case %d: %s: %s\ninput: %s", $seed, $cases, $e::class, $e->getMessage(), \bin2hex($input)));
                }
                self::assertLessThan(0.5, (\hrtime(true) - $start) / 1e9, "case $cases too slow (seed $seed)");
                if ($cases % 256 === 0) {
                    self::assertLessThan(16 << 20, \memory_get_usage() - $baseline, "memory grows (seed $seed)");
                }
            }
        } finally {
            \restore_error_handler();
        }
        \gc_collect_cycles();
        self::assertLessThan(4 << 20, \memory_get_usage() - $baseline, "memory leaked (seed $seed)");
        self::assertGreaterThan(100, $cases);
        self::assertGreaterThan(0, $parsed, "nothing parsed (seed $seed)");
        self::assertGreaterThan(0, $rejected, "nothing rejected (seed $seed)");
    }

    private function generate(Randomizer $random): string
    {
        if ($random->getInt(0, 9) === 0) {
            return $random->getBytes($random->getInt(1, 2048));
        }
        $input = self::SEEDS[$random->getInt(0, \count(self::SEEDS) - 1)];
        if ($random->getInt(0, 3) === 0) {
            $input .= self::SEEDS[$random->getInt(0, \count(self::SEEDS) - 1)];
        }
        for ($m = $random->getInt(1, 4); $m > 0; --$m) {
            $at = $random->getInt(0, \strlen($input) - 1);
            $input = match ($random->getInt(0, 4)) {
                0 => \substr_replace($input, \chr($random->getInt(0, 255)), $at, 1),
                1 => \substr_replace($input, self::INTERESTING[$random->getInt(0, \count(self::INTERESTING) - 1)], $at, 0),
                2 => \substr_replace($input, '', $at, $random->getInt(1, 8)),
                3 => \substr_replace($input, \substr($input, $at, $random->getInt(1, 64)), $at, 0),
                default => \substr_replace($input, \chr(\ord($input[$at]) ^ (1 << $random->getInt(0, 7))), $at, 1),
            };
            if ($input === '') {
                $input = "\r\n";
            }
        }

        return $input;
    }

    /** @return list<string> */
    private function split(Randomizer $random, string $input): array
    {
        return match ($random->getInt(0, 2)) {
            0 => [$input],
            1 => \str_split($input),
            default => ParserHarness::randomSplit($input, $random->getInt(1, 1 << 30), $random->getInt(1, 64)),
        };
    }
}
