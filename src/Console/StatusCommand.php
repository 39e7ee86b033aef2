<?php

declare(strict_types=1);

namespace Petrel\Console;

use Petrel\Process\PidFile;

/**
 * `petrel status`: reads the status the master refreshes every second and prints a table:
 * the workers, then the task workers ("task 1"; REQUESTS counts tasks; a ready task worker's
 * state is idle or busy, followed by the task it runs); then, per worker, the figures
 * /metrics sums (requests by status class, in flight, latency p50/p99, loop lag, blocking
 * episodes, pools) and the restarts by reason. Every line ends with a newline.
 *
 * A worker's REQUESTS are the requests it answered, those refused before any handler (a
 * malformed head's 400, 413, 431, the connection cap's 503) included, as nginx counts a
 * request answered: the sum of its 2XX–5XX columns (and of 101 upgrades), which count the
 * refused too, so REQUESTS 10 never sits beside 4XX 12. (--max-requests counts only the
 * requests a handler ran.)
 */
final class StatusCommand
{
    /** Seconds `petrel stop` waits for the master at least. */
    public const STOP_WAIT = 120.0;

    public static function statusFileFor(string $pidFile): string
    {
        return \preg_replace('/\.pid$/', '', $pidFile) . '.status.json';
    }

    /**
     * How long `petrel stop` waits for master $pid to exit: its --graceful-timeout (from its
     * status file) and a margin for the workers' shutdown, at least STOP_WAIT seconds.
     */
    public static function stopWait(string $pidFile, int $pid): float
    {
        $status = \json_decode((string) @\file_get_contents(self::statusFileFor($pidFile)), true);
        $graceful = \is_array($status) && ($status['master'] ?? null) === $pid ? $status['graceful_timeout'] ?? null : null;

        return \max(self::STOP_WAIT, \is_int($graceful) || \is_float($graceful) ? $graceful + 30.0 : 0.0);
    }

    public function run(PidFile $pidFile): int
    {
        $pid = $pidFile->read() ?? throw new ConsoleException("no Petrel server is running (no live pid in {$pidFile->path})");
        $file = self::statusFileFor($pidFile->path);
        $deadline = \microtime(true) + 3;
        while (!\is_file($file) && \microtime(true) < $deadline) {
            \usleep(100000);
        }
        $status = \json_decode((string) @\file_get_contents($file), true);
        if (!\is_array($status) || !\is_array($status['workers'] ?? null)) {
            throw new ConsoleException("master pid {$pid} is running but wrote no status yet ({$file})");
        }
        $age = \microtime(true) - (float) ($status['updated'] ?? 0);
        $tasks = \count(\array_filter($status['workers'], static fn (mixed $w): bool => \is_array($w) && ($w['kind'] ?? 'http') === 'task'));
        \printf(
            "Petrel master pid %d, up %s, %d worker(s)%s%s\n",
            $pid,
            self::duration((float) ($status['uptime'] ?? 0)),
            \count($status['workers']) - $tasks,
            $tasks > 0 ? ", {$tasks} task worker(s)" : '',
            $age > 5 ? \sprintf(' (status is %.0f s old)', $age) : '',
        );
        \printf("%-7s %-8s %-9s %10s %6s %11s %9s %9s\n", 'WORKER', 'PID', 'STATE', 'REQUESTS', 'CONNS', 'COROUTINES', 'MEMORY', 'UPTIME');
        foreach ($status['workers'] as $worker) {
            if (!\is_array($worker)) {
                continue;
            }
            $task = ($worker['kind'] ?? 'http') === 'task';
            $state = $worker['state'] ?? '?';
            \printf(
                "%-7s %-8s %-9s %10s %6s %11s %9s %9s%s\n",
                ($task ? 'task ' : '') . ($worker['number'] ?? '?'),
                $worker['pid'] ?? '?',
                // A ready task worker shows what it does: idle or busy (running a task).
                $task && $state === 'ready' ? ($worker['activity'] ?? $state) : $state,
                $worker['requests'] ?? '-',
                $worker['connections'] ?? '-',
                $worker['coroutines'] ?? '-',
                isset($worker['memory']) ? \sprintf('%.1f MB', (int) $worker['memory'] / 1048576) : '-',
                isset($worker['uptime']) ? self::duration((float) $worker['uptime']) : '-',
                $task && isset($worker['task']) && \is_string($worker['task']) ? "  {$worker['task']}" : '',
            );
        }

        self::printMetrics($status);

        return 0;
    }

    /**
     * The figures /metrics sums, per worker: requests by status class, in flight, latency
     * quantiles (from the histogram), the loop's lag and blocking episodes; then the pools
     * and the restarts by reason.
     *
     * @param array<mixed> $status
     */
    private static function printMetrics(array $status): void
    {
        $rows = [];
        $pools = [];
        foreach ($status['workers'] as $worker) {
            if (!\is_array($worker) || !\is_array($worker['metrics'] ?? null)) {
                continue;
            }
            $metrics = $worker['metrics'];
            $classes = [1 => 0, 2 => 0, 3 => 0, 4 => 0, 5 => 0];
            foreach ((array) ($metrics['requests'] ?? []) as $byClass) {
                foreach ((array) $byClass as $class => $count) {
                    $classes[(int) $class] = ($classes[(int) $class] ?? 0) + (int) $count;
                }
            }
            $buckets = \array_map(\intval(...), \array_values((array) ($metrics['buckets'] ?? [])));
            $ms = static fn (?float $seconds): string => $seconds === null ? '-' : \sprintf('%.1f ms', $seconds * 1000);
            $rows[] = \sprintf(
                "%-7s %9s %8s %8s %8s %8s %10s %10s %10s %8s\n",
                $worker['number'] ?? '?',
                $metrics['in_flight'] ?? 0,
                $classes[2],
                $classes[3],
                $classes[4],
                $classes[5],
                $ms(\Petrel\Observability\RequestMetrics::quantile($buckets, 0.5)),
                $ms(\Petrel\Observability\RequestMetrics::quantile($buckets, 0.99)),
                $ms((float) ($metrics['loop_lag'] ?? 0)),
                $metrics['blocked'] ?? 0,
            );
            foreach ((array) ($metrics['pools'] ?? []) as $name => $pool) {
                $pool = (array) $pool;
                $pools[] = \sprintf("  worker %s pool %s: %d in use, %d idle, %d waiting, %d acquire timeouts\n", $worker['number'] ?? '?', $name, $pool['busy'] ?? 0, $pool['idle'] ?? 0, $pool['waiting'] ?? 0, $pool['timeouts'] ?? 0);
            }
        }
        if ($rows !== []) {
            \printf("\n%-7s %9s %8s %8s %8s %8s %10s %10s %10s %8s\n", 'WORKER', 'IN-FLIGHT', '2XX', '3XX', '4XX', '5XX', 'P50', 'P99', 'LOOP-LAG', 'BLOCKED');
            echo \implode('', $rows), \implode('', $pools);
        }
        $restarts = \array_filter((array) ($status['restarts'] ?? []));
        echo 'Restarts: ', $restarts === [] ? 'none' : \implode(', ', \array_map(static fn (string $reason, mixed $count): string => "{$reason} {$count}", \array_keys($restarts), $restarts)), "\n";
    }

    private static function duration(float $seconds): string
    {
        $seconds = (int) $seconds;

        return match (true) {
            $seconds < 60 => "{$seconds}s",
            $seconds < 3600 => \intdiv($seconds, 60) . 'm ' . ($seconds % 60) . 's',
            default => \intdiv($seconds, 3600) . 'h ' . \intdiv($seconds % 3600, 60) . 'm',
        };
    }
}
