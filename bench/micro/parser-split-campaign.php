<?php

declare(strict_types=1);

/*
 * Offline property campaign for the HTTP parser (too long for the test suite, which runs
 * the same property for 1.5 s in tests/Unit/Http/RequestParserSplitTest.php): N inputs from
 * ParserFuzzCorpus, each fed whole, byte by byte and in two random splits; counts the inputs
 * whose outcome (the requests parsed and the final status) depends on the split.
 *
 *   php bench/micro/parser-split-campaign.php [N=100000] [SEED]
 *
 * 2026-11-25: 1,000,000 inputs, 0 split-dependent, 149 s (the parser before that day: 1.06 %).
 */

$root = \dirname(__DIR__, 2);
require $root . '/vendor/autoload.php';
require_once $root . '/tests/Unit/Http/ParserHarness.php';
require_once $root . '/tests/Unit/Http/ParserFuzzCorpus.php';

use Petrel\Http\HttpException;
use Petrel\Http\HttpLimits;
use Petrel\Http\Internal\RequestParser;
use Petrel\Tests\Unit\Http\ParserFuzzCorpus;
use Petrel\Tests\Unit\Http\ParserHarness;

/** @param list<string> $pieces @return list<string> one entry per request, then the final status or 'incomplete' */
function outcome(array $pieces, HttpLimits $limits): array
{
    $parser = new RequestParser($limits);
    $out = [];
    try {
        foreach ($pieces as $piece) {
            $parser->feed($piece);
            while (($request = $parser->next()) !== null) {
                $out[] = \md5(\serialize(ParserHarness::describe($request)));
            }
        }
    } catch (HttpException $error) {
        $out[] = 'E' . $error->getStatus();

        return $out;
    }
    $out[] = 'incomplete';

    return $out;
}

$count = (int) ($argv[1] ?? 100000);
$seed = (int) ($argv[2] ?? \random_int(1, \PHP_INT_MAX));
$random = new Random\Randomizer(new Random\Engine\Mt19937($seed));
$dependent = 0;
$outcomes = [];
$started = \microtime(true);
for ($i = 0; $i < $count; $i++) {
    $limits = ParserFuzzCorpus::limits($random);
    $input = ParserFuzzCorpus::generate($random);
    $splitSeed = $random->getInt(1, 1 << 30);
    $whole = outcome([$input], $limits);
    $final = (string) \end($whole);
    $outcomes[$final] = ($outcomes[$final] ?? 0) + 1;
    $splits = [\str_split($input), ParserHarness::randomSplit($input, $splitSeed, 5), ParserHarness::randomSplit($input, $splitSeed + 1, 64)];
    foreach ($splits as $pieces) {
        if (outcome($pieces, $limits) !== $whole) {
            if (++$dependent <= 5) {
                echo 'split-dependent: ', \json_encode(\mb_convert_encoding($input, 'UTF-8', 'ISO-8859-1')), "\n";
            }
            break;
        }
    }
}
\ksort($outcomes);
\printf("seed %d: %d inputs, %d split-dependent, %.1f s, final outcomes %s\n", $seed, $count, $dependent, \microtime(true) - $started, \json_encode($outcomes));
exit($dependent === 0 ? 0 : 1);
