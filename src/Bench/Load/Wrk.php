<?php

declare(strict_types=1);

namespace Petrel\Bench\Load;

/**
 * wrk (Debian's package): `wrk -t2 -c100 -d5s --latency --timeout 10s URL`.
 *
 * Threads = min(cores, connections): wrk shares the machine with the server, and more
 * threads than cores only adds context switches. Socket errors (connect, read, write,
 * timeout) count as errors; "Non-2xx or 3xx responses" as non-2xx.
 */
final class Wrk implements LoadGenerator
{
    public function __construct(private readonly int $threads)
    {
    }

    public function name(): string
    {
        return 'wrk';
    }

    public function package(): string
    {
        return 'wrk';
    }

    public function command(string $url, int $connections, int $seconds, float $timeout): array
    {
        $threads = \max(1, \min($this->threads, $connections));

        return ['wrk', "-t{$threads}", "-c{$connections}", "-d{$seconds}s", '--latency', '--timeout', self::seconds($timeout), $url];
    }

    public function parse(string $output): LoadResult
    {
        if (!\preg_match('/^Requests\/sec:\s+([\d.]+)/m', $output, $rate)
            || !\preg_match('/^\s+(\d+) requests in /m', $output, $requests)) {
            throw LoadException::unreadable('wrk', $output);
        }
        $percentiles = [];
        \preg_match_all('/^\s+(50|90|99)%\s+([\d.]+)(us|ms|s|m)\s*$/m', $output, $rows, \PREG_SET_ORDER);
        foreach ($rows as [, $percent, $value, $unit]) {
            $percentiles[$percent] = (float) $value * ['us' => 0.001, 'ms' => 1.0, 's' => 1000.0, 'm' => 60000.0][$unit];
        }
        if (!isset($percentiles['50'], $percentiles['90'], $percentiles['99'])) {
            throw LoadException::unreadable('wrk (run it with --latency)', $output);
        }
        $errors = 0;
        if (\preg_match('/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/', $output, $socket)) {
            $errors = (int) $socket[1] + (int) $socket[2] + (int) $socket[3] + (int) $socket[4];
        }
        $non2xx = \preg_match('/Non-2xx or 3xx responses: (\d+)/', $output, $status) ? (int) $status[1] : 0;

        return new LoadResult((float) $rate[1], (int) $requests[1], $percentiles['50'], $percentiles['90'], $percentiles['99'], $errors, $non2xx);
    }

    private static function seconds(float $seconds): string
    {
        return \max(1, (int) \ceil($seconds)) . 's';
    }
}
