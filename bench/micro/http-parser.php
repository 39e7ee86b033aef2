<?php

declare(strict_types=1);

/*
 * Micro-benchmark of the HTTP/1.1 request parser: requests parsed per second for a
 * minimal wrk-style GET and a typical browser GET (~400-byte head), each fed whole, plus
 * pipelined batches and the response encoder for a hello-world response.
 *
 *   php bench/micro/http-parser.php [seconds-per-case, default 1.5]
 *
 * Each case runs in 5 rounds; the best and the median round are printed (the best is the
 * least disturbed by other processes on a shared machine).
 */

use Petrel\Http\Internal\DateCache;
use Petrel\Http\Internal\RequestParser;
use Petrel\Http\Internal\ResponseEncoder;
use Petrel\Http\Response;

require __DIR__ . '/../../vendor/autoload.php';

$seconds = (float) ($argv[1] ?? 1.5);
const ROUNDS = 5;

$minimal = "GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n";
$browser = "GET /articles/2024/petrel-coroutines?page=2&sort=new HTTP/1.1\r\n"
    . "Host: www.example.com\r\n"
    . "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:124.0) Gecko/20100101 Firefox/124.0\r\n"
    . "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n"
    . "Accept-Language: en-US,en;q=0.5\r\n"
    . "Accept-Encoding: gzip, deflate, br\r\n"
    . "Referer: https://www.example.com/articles\r\n"
    . "Cookie: session=8f2a9c1e4b7d; theme=dark\r\n"
    . "Connection: keep-alive\r\n"
    . "Upgrade-Insecure-Requests: 1\r\n\r\n";

/**
 * @param callable(float): float $case returns operations per second over a round
 * @return array{float, float} best and median rate
 */
function rounds(callable $case, float $seconds): array
{
    $rates = [];
    for ($i = 0; $i < ROUNDS; ++$i) {
        $rates[] = $case($seconds / ROUNDS);
    }
    sort($rates);

    return [$rates[ROUNDS - 1], $rates[intdiv(ROUNDS, 2)]];
}

/** @return float requests per second */
function parse(string $bytes, int $perFeed, float $seconds): float
{
    $parser = new RequestParser();
    $batch = str_repeat($bytes, $perFeed);
    $count = 0;
    $start = hrtime(true);
    $deadline = $start + (int) ($seconds * 1e9);
    do {
        for ($i = 0; $i < 1000; $i += $perFeed) {
            $parser->feed($batch);
            while ($parser->next() !== null) {
                ++$count;
            }
        }
        $now = hrtime(true);
    } while ($now < $deadline);

    return $count / (($now - $start) / 1e9);
}

/** @return float responses per second */
function encode(float $seconds): float
{
    $encoder = new ResponseEncoder();
    $count = 0;
    $start = hrtime(true);
    $deadline = $start + (int) ($seconds * 1e9);
    do {
        for ($i = 0; $i < 1000; ++$i) {
            $encoder->encode(Response::text('Hello, World!'), '1.1', true, false, DateCache::get());
        }
        $count += 1000;
        $now = hrtime(true);
    } while ($now < $deadline);

    return $count / (($now - $start) / 1e9);
}

printf("PHP %s, opcache.enable_cli=%s, JIT=%s\n", PHP_VERSION, ini_get('opcache.enable_cli') ? 'on' : 'off',
    function_exists('opcache_get_status') && (opcache_get_status(false)['jit']['on'] ?? false) ? 'on' : 'off');
foreach ([
    ['minimal GET (' . strlen($minimal) . ' B), one per feed', $minimal, 1],
    ['browser GET (' . strlen($browser) . ' B), one per feed', $browser, 1],
    ['minimal GET, 16 pipelined per feed', $minimal, 16],
    ['browser GET, 16 pipelined per feed', $browser, 16],
] as [$label, $bytes, $perFeed]) {
    [$best, $median] = rounds(static fn (float $s): float => parse($bytes, $perFeed, $s), $seconds);
    printf("%-42s %10s req/s  (median %s)\n", $label, number_format($best), number_format($median));
}
[$best, $median] = rounds(encode(...), $seconds);
printf("%-42s %10s resp/s (median %s)\n", 'encode Response::text() with Date', number_format($best), number_format($median));
