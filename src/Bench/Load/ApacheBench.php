<?php

declare(strict_types=1);

namespace Petrel\Bench\Load;

/**
 * ab (apache2-utils), the tool the seeds used: `ab -k -q -c 100 -t 5 -n 100000000 -s 10 URL`.
 *
 * Keep-alive (-k) like wrk; -n is set huge so -t alone ends the run (ab caps -t runs at
 * 50,000 requests otherwise). ab reports whole milliseconds only, so sub-millisecond
 * latencies read as 0 or 1. "Failed requests" (connect, receive, length and exceptions)
 * count as errors; "Non-2xx responses" as non-2xx.
 */
final class ApacheBench implements LoadGenerator
{
    public function name(): string
    {
        return 'ab';
    }

    public function package(): string
    {
        return 'apache2-utils';
    }

    public function command(string $url, int $connections, int $seconds, float $timeout): array
    {
        return ['ab', '-k', '-q', '-c', (string) $connections, '-t', (string) $seconds, '-n', '100000000',
            '-s', (string) \max(1, (int) \ceil($timeout)), $url];
    }

    public function parse(string $output): LoadResult
    {
        if (!\preg_match('/^Requests per second:\s+([\d.]+)/m', $output, $rate)
            || !\preg_match('/^Complete requests:\s+(\d+)/m', $output, $requests)) {
            throw LoadException::unreadable('ab', $output);
        }
        $percentiles = [];
        \preg_match_all('/^\s+(50|90|99)%\s+(\d+)\s*$/m', $output, $rows, \PREG_SET_ORDER);
        foreach ($rows as [, $percent, $value]) {
            $percentiles[$percent] = (float) $value;
        }
        if (!isset($percentiles['50'], $percentiles['90'], $percentiles['99'])) {
            throw LoadException::unreadable('ab (no percentile table)', $output);
        }
        $errors = \preg_match('/^Failed requests:\s+(\d+)/m', $output, $failed) ? (int) $failed[1] : 0;
        $non2xx = \preg_match('/^Non-2xx responses:\s+(\d+)/m', $output, $status) ? (int) $status[1] : 0;

        return new LoadResult((float) $rate[1], (int) $requests[1], $percentiles['50'], $percentiles['90'], $percentiles['99'], $errors, $non2xx);
    }
}
