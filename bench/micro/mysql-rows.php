<?php

declare(strict_types=1);

/**
 * Micro-benchmark of the MySQL row decoder: a 1,000-row result with 3 columns
 * (INT id, VARCHAR name, VARCHAR email), built in memory in the text protocol (COM_QUERY) and
 * the binary protocol (COM_STMT_EXECUTE), fed to PacketFramer in 64 KiB chunks (as a socket
 * would deliver it) and decoded by ResultDecoder into associative rows, both with drain()
 * (buffering) and with one push() per packet (streaming). Also times a small
 * seed-style result (1 row, and 5 rows) end to end, column definitions included, with and
 * without the per-connection MetadataCache.
 *
 * Usage: php bench/micro/mysql-rows.php [seconds per case, default 1.5]
 *
 * Each case runs in 5 rounds; the best and the median round are printed.
 */

use Petrel\Database\Mysql\Internal\Capability;
use Petrel\Database\Mysql\Internal\MetadataCache;
use Petrel\Database\Mysql\Internal\PacketFramer;
use Petrel\Database\Mysql\Internal\PayloadWriter;
use Petrel\Database\Mysql\Internal\ResultDecoder;
use Petrel\Database\Mysql\Internal\ResultEvent;

require __DIR__ . '/../../vendor/autoload.php';

$seconds = (float) ($argv[1] ?? 1.5);
const ROUNDS = 5;
$capabilities = Capability::PROTOCOL_41 | Capability::DEPRECATE_EOF;

function column(string $name, int $type, int $flags, int $charset, int $length): string
{
    return PayloadWriter::lenencString('def') . PayloadWriter::lenencString('bench')
        . PayloadWriter::lenencString('test') . PayloadWriter::lenencString('test')
        . PayloadWriter::lenencString($name) . PayloadWriter::lenencString($name)
        . "\x0C" . pack('vVCvC', $charset, $length, $type, $flags, 0) . "\0\0";
}

/** @return string the response bytes, as the server would send them */
function result(int $rows, bool $binary): string
{
    $payloads = ["\x03"];
    $payloads[] = column('id', 0x03, 0x4203, 63, 11);
    $payloads[] = column('name', 0xFD, 0, 45, 400);
    $payloads[] = column('email', 0xFD, 0, 45, 1020);
    for ($i = 1; $i <= $rows; ++$i) {
        $name = "user name $i";
        $email = "user$i@example.com";
        $payloads[] = $binary
            ? "\x00\x00" . pack('V', $i) . PayloadWriter::lenencString($name) . PayloadWriter::lenencString($email)
            : PayloadWriter::lenencString((string) $i) . PayloadWriter::lenencString($name)
                . PayloadWriter::lenencString($email);
    }
    $payloads[] = "\xFE\x00\x00\x22\x00\x00\x00";
    $bytes = '';
    foreach ($payloads as $sequence => $payload) {
        $bytes .= PacketFramer::frame($payload, $sequence + 1);
    }

    return $bytes;
}

/** @return int rows decoded */
function decode(string $bytes, int $capabilities, bool $binary, ?MetadataCache $cache, bool $perRow): int
{
    $framer = new PacketFramer();
    $framer->resetSequence();
    $framer->packet("\x03"); // the command: the response starts at sequence id 1
    $decoder = new ResultDecoder($capabilities, $binary, $cache);
    $rows = [];
    $length = \strlen($bytes);
    for ($offset = 0; $offset < $length; $offset += 65536) {
        $framer->feed(substr($bytes, $offset, 65536));
        if ($perRow) {
            // Streaming style: one push() per packet, one row() per row.
            while (($payload = $framer->next()) !== null) {
                if ($decoder->push($payload) === ResultEvent::Row) {
                    $rows[] = $decoder->row();
                }
            }
            continue;
        }
        // Buffering style: drain() decodes straight from the framer.
        while (!$decoder->isComplete() && $decoder->drain($framer, $rows) !== null) {
            // ResultSet / ResultSetEnd: nothing to do for one result set
        }
    }
    if (!$decoder->isComplete()) {
        throw new RuntimeException('incomplete result');
    }

    return \count($rows);
}

/**
 * Runs a case in ROUNDS rounds and prints the best and the median round (the best is the
 * least disturbed by other processes on a shared machine).
 */
function measure(
    string $label,
    string $bytes,
    int $capabilities,
    bool $binary,
    float $seconds,
    bool $cached = false,
    bool $perRow = false,
): void {
    $cache = $cached ? new MetadataCache() : null; // one per connection in real use
    decode($bytes, $capabilities, $binary, $cache, $perRow); // warm up
    $rowRates = [];
    $resultRates = [];
    for ($round = 0; $round < ROUNDS; ++$round) {
        $rows = 0;
        $results = 0;
        $start = hrtime(true);
        $deadline = $start + (int) ($seconds / ROUNDS * 1e9);
        do {
            $rows += decode($bytes, $capabilities, $binary, $cache, $perRow);
            ++$results;
            $now = hrtime(true);
        } while ($now < $deadline);
        $elapsed = ($now - $start) / 1e9;
        $rowRates[] = $rows / $elapsed;
        $resultRates[] = $results / $elapsed;
    }
    sort($rowRates);
    sort($resultRates);
    printf(
        "%-40s %10s rows/s (median %s)  %9s results/s (%.1f µs each)\n",
        $label,
        number_format($rowRates[ROUNDS - 1]),
        number_format($rowRates[intdiv(ROUNDS, 2)]),
        number_format($resultRates[ROUNDS - 1]),
        1e6 / $resultRates[ROUNDS - 1],
    );
}

$opcache = \function_exists('opcache_get_status') ? opcache_get_status(false) : false;
printf(
    "PHP %s, opcache %s, JIT %s\n",
    PHP_VERSION,
    \is_array($opcache) && ($opcache['opcache_enabled'] ?? false) ? 'on' : 'off',
    \is_array($opcache) && ($opcache['jit']['on'] ?? false) ? 'on' : 'off',
);
$text1000 = result(1000, false);
$binary1000 = result(1000, true);
measure('text, 1000 rows x 3 cols, drain()', $text1000, $capabilities, false, $seconds);
measure('binary, 1000 rows x 3 cols, drain()', $binary1000, $capabilities, true, $seconds);
measure('text, 1000 rows x 3 cols, push()', $text1000, $capabilities, false, $seconds, false, true);
measure('binary, 1000 rows x 3 cols, push()', $binary1000, $capabilities, true, $seconds, false, true);
measure('text, 1 row (seed lookup)', result(1, false), $capabilities, false, $seconds);
measure('text, 1 row, metadata cached', result(1, false), $capabilities, false, $seconds, true);
measure('text, 5 rows (seed limit 5)', result(5, false), $capabilities, false, $seconds);
measure('text, 5 rows, metadata cached', result(5, false), $capabilities, false, $seconds, true);
measure('binary, 1 row, metadata cached', result(1, true), $capabilities, true, $seconds, true);
