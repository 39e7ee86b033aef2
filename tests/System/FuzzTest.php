<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Coroutine\TimeoutException;
use Petrel\Socket\SocketException;
use Petrel\Tests\Support\AsyncTestCase;
use Petrel\Tests\Support\PetrelProcess;
use Petrel\Tests\Support\RawHttp;
use Random\Engine\Xoshiro256StarStar;
use Random\Randomizer;

use function Petrel\go;
use function Petrel\sleep;
use function Petrel\timeout;

/**
 * A spawned server (one worker, 1 s header and idle timeouts) gets random bytes and
 * mutated valid requests over many concurrent connections for BUDGET seconds, sent in
 * random pieces with tiny pauses. Every response must be well formed with a 100, 2xx, 4xx
 * or 5xx status; a 500 only when the app failed (the fixture's /echo cannot JSON-encode
 * form bytes that are not UTF-8; its /boom route is never asked for), never for bad input
 * Petrel detects; `GET /` must keep working meanwhile, the worker must never be replaced,
 * and every connection must be closed by the server within the header timeout + 2 s of
 * the client's last byte. Nothing may reach the server's log as a PHP warning, notice or
 * deprecation (the templates include queries and forms PHP would warn about: a client must
 * not be able to write a log line per request).
 *
 * Each connection's input comes from the seed and the connection's number alone, so a
 * failure (its message names both) replays with PETREL_FUZZ_SEED=<seed>.
 */
final class FuzzTest extends AsyncTestCase
{
    private const BUDGET = 3.0;
    private const CLIENTS = 12;
    private const HEADER_TIMEOUT = 1.0;
    /** The server must hang up within this many seconds of our last byte. */
    private const HANG_LIMIT = self::HEADER_TIMEOUT + 2.0;

    private const TEMPLATES = [
        "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /pid?x=1&y=%20 HTTP/1.1\r\nHost: a\r\nAccept: */*\r\nCookie: a=1; b=2\r\nConnection: keep-alive\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 11\r\n\r\na=1&b=2&c=3",
        "POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello",
        "GET /sleep?ms=5 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "GET /stream HTTP/1.1\r\nHost: a\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n",
        "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: 138\r\n\r\n"
            . "--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\n\r\nfile\r\n--XyZ\r\n"
            . "Content-Disposition: form-data; name=\"t\"\r\n\r\nv\r\n--XyZ--\r\n",
    ];

    private const INTERESTING = [
        "\r\n", "\r", "\n", "\0", ' ', "\t", ':', ';', ',', '-', "\x7f", "\xff", "\r\n\r\n", 'HTTP/1.1', 'HTTP/2.0',
        "Content-Length: 99999999999999999999\r\n", "Content-Length: 9223372036854775808\r\n", "Content-Length: -1\r\n",
        "Content-Length: 3\r\n", "Transfer-Encoding: chunked\r\n", "Transfer-Encoding: gzip\r\n", "Host: b\r\n",
        "ffffffffffffffffff\r\n", "0\r\n\r\n", "Expect: 100-continue\r\n", 'X-Pad: p', '[a]', '%5B', '%', '&',
    ];

    public function testTheServerSurvivesRandomAndMutatedInput(): void
    {
        $seed = (int) (\getenv('PETREL_FUZZ_SEED') ?: \random_int(1, \PHP_INT_MAX));
        $server = (new PetrelProcess(__DIR__ . '/fixtures/app.php', [
            '--workers=1', '--header-timeout=' . self::HEADER_TIMEOUT, '--idle-timeout=1',
        ]))->start();
        $stats = ['connections' => 0, 'responses' => 0, 'statuses' => [], 'truncated' => 0, 'probes' => 0];
        $failures = [];
        $this->async(function () use ($server, $seed, &$stats, &$failures): void {
            $pid = RawHttp::get($server->address, '/pid')->body;
            $deadline = \microtime(true) + self::BUDGET;
            $next = 0;
            $clients = [];
            for ($c = 0; $c < self::CLIENTS; $c++) {
                $clients[] = go(function () use ($server, $seed, $deadline, &$next, &$stats, &$failures): void {
                    while (\microtime(true) < $deadline && \count($failures) < 5) {
                        $case = $next++;
                        $stats['connections']++;
                        $error = $this->runCase($server->address, $seed, $case, $stats);
                        if ($error !== null) {
                            $failures[] = "seed {$seed}, connection {$case}: {$error}";
                        }
                    }
                });
            }
            while (\microtime(true) < $deadline) {
                $failures = [...$failures, ...self::probe($server->address, $seed)];
                $stats['probes']++;
                sleep(0.1);
            }
            foreach ($clients as $client) {
                $client->join();
            }
            $failures = [...$failures, ...self::probe($server->address, $seed)];
            self::assertSame($pid, RawHttp::get($server->address, '/pid')->body, "the worker was replaced (seed {$seed})");
        }, self::BUDGET + self::HANG_LIMIT + 3.0);
        $log = $server->log();
        $server->stop();
        $replay = "Fuzz seed {$seed} (replay: PETREL_FUZZ_SEED={$seed})\n" . \json_encode($stats);
        self::assertSame([], $failures, $replay);
        self::assertDoesNotMatchRegularExpression('/PHP (Fatal|Warning|Notice|Deprecated)|Uncaught/', $log, "{$replay}\nthe server logged a PHP error");
        \preg_match_all('/ petrel: (.*) failed: ([\\\\\w]+): (.*)/', $log, $handlerFailures, \PREG_SET_ORDER);
        foreach ($handlerFailures as [$line, , $class]) {
            self::assertSame(\JsonException::class, $class, "{$replay}\nonly the app may fail (its /echo cannot JSON-encode non-UTF-8 form bytes); "
                . "bad input Petrel finds while the handler reads the request must get its 4xx, not a 500:\n{$line}");
        }
        self::assertLessThanOrEqual(\count($handlerFailures), $stats['statuses'][500] ?? 0, "{$replay}\nevery 500 is a logged app failure");
        self::assertGreaterThan(100, $stats['connections'], 'the fuzzer got through enough connections');
        self::assertGreaterThan(0, $stats['responses']);
    }

    /**
     * TEMPLATES and requests whose query or form PHP would drop with a warning in the log
     * (nesting deeper than max_input_nesting_level, more pairs than max_input_vars): Petrel
     * answers them 400 and must log nothing.
     *
     * @return list<string>
     */
    private static function templates(): array
    {
        static $templates = null;
        if ($templates !== null) {
            return $templates;
        }
        $deep = 'n' . \str_repeat('[a]', 65) . '=1';
        $form = static fn (string $path, string $type, string $body): string => "POST {$path} HTTP/1.1\r\nHost: a\r\n"
            . "Content-Type: {$type}\r\nContent-Length: " . \strlen($body) . "\r\n\r\n{$body}";
        $part = static fn (string $name, string $filename): string => "--B\r\nContent-Disposition: form-data; name=\"{$name}\"{$filename}"
            . "\r\n\r\nv\r\n--B--\r\n";

        return $templates = [
            ...self::TEMPLATES,
            "GET /sleep?ms=0&{$deep} HTTP/1.1\r\nHost: a\r\n\r\n",
            'GET /sleep?ms=0&n' . \str_repeat('%5B%5D', 70) . "=1 HTTP/1.1\r\nHost: a\r\n\r\n",
            'GET /sleep?ms=0' . \str_repeat('&v[]=1', 1001) . " HTTP/1.1\r\nHost: a\r\n\r\n",
            'GET /sleep?ms=0&' . \str_repeat('%', 3000) . "=%zz&%=% HTTP/1.1\r\nHost: a\r\n\r\n",
            $form('/echo', 'application/x-www-form-urlencoded', "a=1&{$deep}"),
            $form('/echo', 'application/x-www-form-urlencoded', \str_repeat('&', 1001) . 'a=1'),
            $form('/upload', 'multipart/form-data; boundary=B', $part(\substr($deep, 0, -2), '')),
            $form('/upload', 'multipart/form-data; boundary=B', $part(\substr($deep, 0, -2), '; filename="f.txt"')),
        ];
    }

    /** @return list<string> failures of a normal request to GET / */
    private static function probe(string $address, int $seed): array
    {
        try {
            $response = timeout(2.0, static fn () => RawHttp::get($address, '/'));

            return $response->status === 200 && $response->body === 'Hello, World!'
                ? [] : ["seed {$seed}: GET / answered {$response->status}"];
        } catch (TimeoutException | SocketException | \RuntimeException $e) {
            return ["seed {$seed}: GET / failed meanwhile: {$e->getMessage()}"];
        }
    }

    /**
     * One connection: send the case's bytes in pieces, half-close (mostly), read until the
     * server closes, check what came back. Returns a failure description or null.
     *
     * @param array<string, mixed> $stats
     */
    private function runCase(string $address, int $seed, int $case, array &$stats): ?string
    {
        $random = new Randomizer(new Xoshiro256StarStar(\hash('sha256', "{$seed}:{$case}", true)));
        [$input, $kind, $halfClose] = self::generate($random);
        $what = \sprintf('%s, %s, %d bytes: %s', $kind, $halfClose ? 'half-closed' : 'left open', \strlen($input), self::show($input));
        $socket = RawHttp::connect($address);
        try {
            try {
                foreach (self::split($random, $input) as $piece) {
                    $socket->write($piece);
                    if ($random->getInt(0, 3) === 0) {
                        sleep($random->getInt(0, 3) / 1000);
                    }
                }
                if ($halfClose) {
                    $socket->end();
                }
            } catch (SocketException) {
                // The server already answered and hung up (e.g. a 400 halfway through).
            }
            $received = '';
            $start = \microtime(true);
            try {
                timeout(self::HANG_LIMIT, static function () use ($socket, &$received): void {
                    while (($data = $socket->read()) !== null && \strlen($received) < (4 << 20)) {
                        $received .= $data;
                    }
                });
            } catch (TimeoutException) {
                return \sprintf('the server kept the connection open %.1f s after the last byte (%s)', \microtime(true) - $start, $what);
            } catch (SocketException) {
                // Reset by the server after an error response: what arrived is still checked.
            }
            $error = self::checkResponses($received, $stats);

            return $error === null ? null : "{$error} ({$what})";
        } finally {
            $socket->close();
        }
    }

    /** @return array{string, string, bool} input, kind, whether to half-close after sending */
    private static function generate(Randomizer $random): array
    {
        $choice = $random->getInt(0, 9);
        if ($choice === 0) {
            return [$random->getBytes($random->getInt(1, 2000)), 'random bytes', $random->getInt(0, 3) > 0];
        }
        $input = '';
        for ($n = $random->getInt(1, 3); $n > 0; $n--) {
            $templates = self::templates();
            $input .= $choice === 1 ? self::chunked($random) : $templates[$random->getInt(0, \count($templates) - 1)];
        }
        if ($choice === 2) {
            // Left open on purpose: a complete valid request (idle timeout) or a cut head (header timeout).
            $head = \strpos($input, "\r\n\r\n");
            $cut = $random->getInt(0, 1) === 0 || $head === false ? $input : \substr($input, 0, $random->getInt(1, $head + 1));

            return [$cut, $cut === $input ? 'valid requests' : 'truncated head', false];
        }
        for ($m = $random->getInt(1, 4); $m > 0; $m--) {
            $input = self::mutate($random, $input);
        }

        return [$input, 'mutated requests', true];
    }

    private static function mutate(Randomizer $random, string $input): string
    {
        $length = \strlen($input);
        $at = $random->getInt(0, \max(0, $length - 1));
        $lineStart = (int) \strrpos(\substr($input, 0, $at), "\n");

        return match ($random->getInt(0, 7)) {
            0 => $length === 0 ? $input : \substr_replace($input, \chr(\ord($input[$at]) ^ (1 << $random->getInt(0, 7))), $at, 1),
            1 => \substr_replace($input, $random->getBytes($random->getInt(1, 8)), $at, 0),
            2 => \substr_replace($input, '', $at, $random->getInt(1, 16)),
            3 => \substr($input, 0, $at),
            4 => \substr_replace($input, self::INTERESTING[$random->getInt(0, \count(self::INTERESTING) - 1)], $at, $random->getInt(0, 1)),
            5 => \substr_replace($input, \substr($input, $lineStart, ((int) \strpos($input, "\n", $at)) - $lineStart + 1), $lineStart, 0),
            6 => (string) \preg_replace('/Content-Length: \d+/', 'Content-Length: ' . $random->getInt(0, \PHP_INT_MAX) . \str_repeat('9', $random->getInt(0, 4)), $input, 1),
            default => \substr_replace($input, "X-Big: " . \str_repeat('b', $random->getInt(100, 20000)) . "\r\n", (int) \strpos($input, "\r\n") + 2, 0),
        };
    }

    /** A chunked POST /echo with random chunk sizes, extensions and a trailer. */
    private static function chunked(Randomizer $random): string
    {
        $request = "POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";
        for ($n = $random->getInt(0, 5); $n > 0; $n--) {
            $size = $random->getInt(1, 3000);
            $request .= \dechex($size) . ($random->getInt(0, 3) === 0 ? ';ext="v"' : '') . "\r\n" . \str_repeat('c', $size) . "\r\n";
        }

        return $request . "0\r\n" . ($random->getInt(0, 1) === 0 ? "X-Trailer: t\r\n" : '') . "\r\n";
    }

    /** @return list<string> the input in 1 to 8 pieces */
    private static function split(Randomizer $random, string $input): array
    {
        $cuts = [];
        for ($n = $random->getInt(0, 7); $n > 0 && $input !== ''; $n--) {
            $cuts[] = $random->getInt(1, \strlen($input));
        }
        \sort($cuts);
        $pieces = [];
        $from = 0;
        foreach ([...\array_unique($cuts), \strlen($input)] as $cut) {
            if ($cut > $from) {
                $pieces[] = \substr($input, $from, $cut - $from);
                $from = $cut;
            }
        }

        return $pieces;
    }

    /**
     * Splits what the server sent into responses and checks each status line. A response cut
     * short at the end is tolerated (a reset can drop bytes the kernel already received).
     *
     * @param array<string, mixed> $stats
     */
    private static function checkResponses(string $bytes, array &$stats): ?string
    {
        $offset = 0;
        $length = \strlen($bytes);
        while ($offset < $length) {
            $lineEnd = \strpos($bytes, "\r\n", $offset);
            if ($lineEnd === false) {
                $stats['truncated']++;
                $rest = \substr($bytes, $offset, 9);

                return \str_starts_with('HTTP/1.1 ', $rest) || \str_starts_with($rest, 'HTTP/1.1 ') ? null : 'not a status line: ' . self::show($rest);
            }
            $line = \substr($bytes, $offset, $lineEnd - $offset);
            if (\preg_match('#^HTTP/1\.1 ([1-5]\d\d) [ -~]*$#D', $line, $m) !== 1) {
                return 'not a status line: ' . self::show($line);
            }
            $status = (int) $m[1];
            $stats['responses']++;
            $stats['statuses'][$status] = ($stats['statuses'][$status] ?? 0) + 1;
            if (!($status === 100 || ($status >= 200 && $status < 300) || $status >= 400)) {
                return "status {$status}";
            }
            $headEnd = \strpos($bytes, "\r\n\r\n", $lineEnd - 2);
            if ($headEnd === false) {
                $stats['truncated']++;

                return null;
            }
            $head = \strtolower(\substr($bytes, $offset, $headEnd - $offset));
            $offset = $headEnd + 4;
            if ($status < 200 || $status === 204) {
                continue;
            }
            if (\preg_match('/\r\ncontent-length: (\d+)/', $head, $cl) === 1) {
                $offset += (int) $cl[1];
            } elseif (\str_contains($head, "\r\ntransfer-encoding: chunked")) {
                while (\preg_match('/([0-9a-f]+)\r\n/A', $bytes, $chunk, 0, $offset) === 1) {
                    $offset += \strlen($chunk[0]) + (int) \hexdec($chunk[1]) + 2;
                    if ($chunk[1] === '0') {
                        break;
                    }
                }
            } else {
                return null; // delimited by the close
            }
        }
        if ($offset > $length) {
            $stats['truncated']++;
        }

        return null;
    }

    private static function show(string $bytes): string
    {
        return (string) \json_encode(\mb_convert_encoding(\substr($bytes, 0, 300), 'UTF-8', 'ISO-8859-1'));
    }
}
