<?php

declare(strict_types=1);

namespace Petrel\Bench\Scenario;

use Petrel\Bench\Options;
use Petrel\Bench\Point;
use Petrel\Bench\Report\Chart;
use Petrel\Bench\Report\Charts;
use Petrel\Bench\Report\Markdown;
use Petrel\Bench\Rig;
use Petrel\Bench\ScenarioResult;
use Petrel\Bench\Server\Server;

/**
 * Where coroutines start to pay: req/s of sync and coroutine mode as the database takes
 * longer to answer (`examples/db.php` `/slow?ms=N`: a server-side `SELECT SLEEP(N/1000)`
 * before the three queries), fixed workers, c=100.
 */
final class LatencyScenario implements Scenario
{
    public const WAITS_MS = [0, 1, 5, 10, 50];
    public const CONNECTIONS = 100;
    public const MODES = ['sync', 'coroutine'];

    public function name(): string
    {
        return 'latency';
    }

    public function title(): string
    {
        return 'Query latency — where coroutines start to pay';
    }

    public function description(): string
    {
        return '`examples/db.php` `GET /slow?ms=N`: MariaDB waits N ms (`SELECT SLEEP`) before the three queries, so '
            . 'each request spends N ms waiting on the network, as with a slow query or a remote API. '
            . 'Sync and coroutine mode, `--workers` workers, c=' . self::CONNECTIONS . '. A sync worker can never beat '
            . '1000 / N requests per second; a coroutine worker waits for many requests at once.';
    }

    public function plan(Options $options): array
    {
        $points = [];
        foreach (self::MODES as $mode) {
            foreach (self::WAITS_MS as $ms) {
                $points[] = new Point($mode, $mode, self::x($ms), "/slow?ms={$ms}", self::CONNECTIONS, QueriesScenario::EXPECT,
                    ['workers' => $options->workers, 'mode' => $mode, 'wait_ms' => $ms]);
            }
        }

        return $points;
    }

    public function start(string $server, Rig $rig): Server
    {
        return $rig->launcher->petrel("latency-{$server}", $rig->app('examples/db.php'), $rig->options->workers, $server,
            QueriesScenario::EXPECT, ['DATABASE_URL' => $rig->mysqlUrl()]);
    }

    public function summary(ScenarioResult $result): string
    {
        $rows = [];
        foreach (self::WAITS_MS as $ms) {
            $x = self::x($ms);
            $sync = $result->find('sync', $x);
            $coroutine = $result->find('coroutine', $x);
            $rows[] = [$x, $sync === null ? '—' : Markdown::rateRange($sync), $coroutine === null ? '—' : Markdown::rateRange($coroutine),
                Markdown::ratio($result->ratio('coroutine', 'sync', $x)), Markdown::metric($sync, 'p99_ms'), Markdown::metric($coroutine, 'p99_ms')];
        }

        return Markdown::table(['Server-side wait', 'sync req/s', 'coroutine req/s', 'coroutine / sync', 'sync p99 ms', 'coroutine p99 ms'], $rows);
    }

    public function chart(ScenarioResult $result): ?Chart
    {
        return Charts::series($result, 'req/s as each request waits longer on the database (log scale, higher is better)',
            'server-side wait per request', Chart::LINES, logY: true);
    }

    private static function x(int $ms): string
    {
        return "{$ms} ms";
    }
}
