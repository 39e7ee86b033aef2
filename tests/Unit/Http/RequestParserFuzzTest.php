<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Http;

use Petrel\Http\HttpException;
use Petrel\Http\Internal\FormData;
use Petrel\Http\Internal\RequestParser;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;
use Random\Engine\Mt19937;
use Random\Randomizer;

/**
 * Random bytes, mutations of valid requests and requests with form input PHP has limits
 * for (ParserFuzzCorpus), fed in random splits for about two seconds; every request that
 * comes out is read the way a handler may (query, form, files, cookies). Only HttpException
 * may escape, every case must finish quickly, memory must stay bounded, and nothing may
 * emit a PHP warning, notice or deprecation: under a server such a message is a log line
 * a client could cause once per request. The seed is in every failure message;
 * PETREL_FUZZ_SEED replays one.
 */
#[CoversClass(RequestParser::class)]
#[CoversClass(FormData::class)]
final class RequestParserFuzzTest extends TestCase
{
    private const BUDGET_SECONDS = 2.0;

    public function testOnlyHttpExceptionEscapesNothingIsLoggedAndMemoryStaysBounded(): void
    {
        $seed = (int) (\getenv('PETREL_FUZZ_SEED') ?: \random_int(1, \PHP_INT_MAX));
        $random = new Randomizer(new Mt19937($seed));
        $baseline = \memory_get_usage();
        $deadline = \hrtime(true) + (int) (self::BUDGET_SECONDS * 1e9);
        $cases = 0;
        $rejected = 0;
        $parsed = 0;
        /** @var list<string> $messages */
        $messages = [];
        $input = '';

        \set_error_handler(static function (int $severity, string $message, string $file, int $line) use (&$messages, &$input): bool {
            if (\count($messages) < 5) {
                $messages[] = "$message at $file:$line, input " . \bin2hex(\substr($input, 0, 600));
            }

            return true;
        });
        try {
            while (\hrtime(true) < $deadline) {
                ++$cases;
                $limits = ParserFuzzCorpus::limits($random);
                $input = ParserFuzzCorpus::generate($random);
                $start = self::cpuSeconds();
                $parser = new RequestParser($limits);
                try {
                    foreach ($this->split($random, $input) as $piece) {
                        $parser->feed($piece);
                        for ($i = 0; ($request = $parser->next()) !== null; ++$i) {
                            ++$parsed;
                            ParserFuzzCorpus::readEverything($request);
                            self::assertLessThan(\strlen($input), $i, "more requests than bytes (seed $seed)");
                        }
                    }
                } catch (HttpException $e) {
                    ++$rejected;
                    self::assertContains($e->getStatus(), [400, 413, 414, 431, 501, 505], "seed $seed");
                } catch (\Throwable $e) {
                    self::fail(\sprintf("Fuzz seed %d, case %d: %s: %s\ninput: %s", $seed, $cases, $e::class, $e->getMessage(), \bin2hex($input)));
                }
                // A guard against quadratic parsing, not a speed target: CPU time (which a
                // loaded machine does not inflate as it does wall time), with a wide bound.
                self::assertLessThan(2.0, self::cpuSeconds() - $start, "case $cases took pathologically long (seed $seed)");
                if ($cases % 256 === 0) {
                    self::assertLessThan(16 << 20, \memory_get_usage() - $baseline, "memory grows (seed $seed)");
                }
            }
        } finally {
            \restore_error_handler();
        }
        self::assertSame([], $messages, "PHP warnings, notices or deprecations while fuzzing (seed $seed)");
        \gc_collect_cycles();
        self::assertLessThan(4 << 20, \memory_get_usage() - $baseline, "memory leaked (seed $seed)");
        self::assertGreaterThan(100, $cases);
        self::assertGreaterThan(0, $parsed, "nothing parsed (seed $seed)");
        self::assertGreaterThan(0, $rejected, "nothing rejected (seed $seed)");
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

    /** This process's user + system CPU time. */
    private static function cpuSeconds(): float
    {
        $usage = \getrusage();

        return $usage['ru_utime.tv_sec'] + $usage['ru_utime.tv_usec'] / 1e6 + $usage['ru_stime.tv_sec'] + $usage['ru_stime.tv_usec'] / 1e6;
    }
}
