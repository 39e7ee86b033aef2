<?php

declare(strict_types=1);

/*
 * RESP codec micro-benchmark: php bench/micro/resp.php [rounds]
 *
 * (a) 100,000 "+OK" replies fed in one buffer, parsed one by one;
 * (b) a 1,000-element array of 32-byte bulk strings (replies/s and elements/s);
 * (c) encoding "SET key value" commands.
 * Each case runs [rounds] times (default 5); the best round is printed.
 */

require __DIR__ . '/../../vendor/autoload.php';

use Petrel\Redis\Internal\RespEncoder;
use Petrel\Redis\Internal\RespParser;

$rounds = max(1, (int) ($argv[1] ?? 5));

/** @return float best seconds of $rounds runs of $run */
function best(int $rounds, Closure $run): float
{
    $best = INF;
    for ($i = 0; $i < $rounds; $i++) {
        $start = hrtime(true);
        $run();
        $best = min($best, (hrtime(true) - $start) / 1e9);
    }

    return $best;
}

function report(string $label, int $count, float $seconds, string $unit): void
{
    printf("%-52s %12s %s/s  (%d in %.1f ms)\n", $label, number_format($count / $seconds), $unit, $count, $seconds * 1e3);
}

// (a) 100k simple strings in one buffer.
$okCount = 100_000;
$okBytes = str_repeat("+OK\r\n", $okCount);
$seconds = best($rounds, static function () use ($okBytes, $okCount): void {
    $parser = new RespParser();
    $parser->feed($okBytes);
    $n = 0;
    while ($parser->hasNext()) {
        $parser->next();
        $n++;
    }
    if ($n !== $okCount) {
        throw new RuntimeException("parsed $n replies, expected $okCount");
    }
});
report('(a) +OK simple strings, one buffer', $okCount, $seconds, 'replies');

// (b) 1,000-element arrays of 32-byte bulk strings.
$elements = 1_000;
$arrayReply = '*' . $elements . "\r\n" . str_repeat('$32' . "\r\n" . str_repeat('x', 32) . "\r\n", $elements);
$arrayRepeats = 200;
$seconds = best($rounds, static function () use ($arrayReply, $arrayRepeats, $elements): void {
    $parser = new RespParser();
    for ($i = 0; $i < $arrayRepeats; $i++) {
        $parser->feed($arrayReply);
        if (!$parser->hasNext() || count($parser->next()) !== $elements) {
            throw new RuntimeException('array reply not parsed');
        }
    }
});
report(sprintf('(b) %d x 32-byte bulk array (%d KB)', $elements, intdiv(strlen($arrayReply), 1024)), $arrayRepeats, $seconds, 'replies');
report('    … the same, counted in elements', $arrayRepeats * $elements, $seconds, 'elements');

// (b') the same array arriving in 4 KiB reads.
$chunks = str_split($arrayReply, 4096);
$seconds = best($rounds, static function () use ($chunks, $arrayRepeats): void {
    $parser = new RespParser();
    for ($i = 0; $i < $arrayRepeats; $i++) {
        foreach ($chunks as $chunk) {
            $parser->feed($chunk);
        }
        if (!$parser->hasNext()) {
            throw new RuntimeException('array reply not parsed');
        }
        $parser->next();
    }
});
report("(b') the same array in 4 KiB reads", $arrayRepeats, $seconds, 'replies');

// (c) encoding SET key value.
$commands = 100_000;
$seconds = best($rounds, static function () use ($commands): void {
    $bytes = 0;
    for ($i = 0; $i < $commands; $i++) {
        $bytes += strlen(RespEncoder::encode(['SET', 'key', 'value']));
    }
    if ($bytes !== $commands * 33) {
        throw new RuntimeException("encoded $bytes bytes");
    }
});
report('(c) encode SET key value', $commands, $seconds, 'commands');

printf("PHP %s, opcache.enable_cli=%s, JIT=%s\n", PHP_VERSION, ini_get('opcache.enable_cli') ?: '0', ini_get('opcache.jit') ?: 'off');
