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
 * The seed's table: three SQL queries per request (`examples/db.php` on MariaDB), a
 * resident server in sync mode against the same code in coroutine mode, for
 * workers {2, 8, 50} × concurrency {100, 300, 500}.
 */
final class QueriesScenario implements Scenario
{
    public const WORKERS = [2, 8, 50];
    public const CONNECTIONS = [100, 300, 500];
    public const MODES = ['sync', 'coroutine'];
    public const EXPECT = 'user5@example.com';
    /** The connections a worker's pool may hold: `examples/db.php`'s PoolConfig max. */
    public const POOL = 64;

    /**
     * The connections a MariaDB must take for every point to run: the most workers with full
     * pools, and room for the bench's own and an administrator's.
     */
    public static function connectionsNeeded(): int
    {
        return \max(self::WORKERS) * self::POOL + 100;
    }

    /**
     * What to say before the run when the given MariaDB takes $maxConnections: null when
     * that is enough, else the warning (some requests of the largest points would be
     * answered "Too many connections", 500s).
     */
    public static function capacityWarning(int $maxConnections): ?string
    {
        $needed = self::connectionsNeeded();
        if ($maxConnections >= $needed) {
            return null;
        }

        return \sprintf(
            'the MariaDB given takes %s connections (max_connections); the %d-worker points may open up to %s '
            . '(%d workers × a pool of %d): raise it to %s, or their requests beyond it fail with "Too many connections" (500s)',
            \number_format($maxConnections),
            \max(self::WORKERS),
            \number_format(\max(self::WORKERS) * self::POOL),
            \max(self::WORKERS),
            self::POOL,
            \number_format($needed),
        );
    }

    public function name(): string
    {
        return 'queries';
    }

    public function title(): string
    {
        return 'Three SQL queries per request — sync vs coroutine, workers × concurrency';
    }

    public function description(): string
    {
        return '`examples/db.php` `GET /`: `select * from test where id = 1`, `… id = 2`, `select * from test limit 5` '
            . 'on MariaDB (1,000 rows), the last returned as JSON; the same app in `--mode=sync` (one request at a time '
            . 'per worker, the seeds\' resident mode) and `--mode=coroutine`, for '
            . \implode(', ', self::WORKERS) . ' workers × concurrency ' . \implode(', ', self::CONNECTIONS)
            . '. MariaDB runs on the same machine and its CPU is not in the server\'s CPU %.';
    }

    public function plan(Options $options): array
    {
        $points = [];
        foreach (self::WORKERS as $workers) {
            foreach (self::MODES as $mode) {
                foreach (self::CONNECTIONS as $connections) {
                    $points[] = new Point("{$mode}-{$workers}", $mode, self::x($workers, $connections), '/', $connections, self::EXPECT,
                        ['workers' => $workers, 'mode' => $mode]);
                }
            }
        }

        return $points;
    }

    public function start(string $server, Rig $rig): Server
    {
        [$mode, $workers] = \explode('-', $server);

        return $rig->launcher->petrel("queries-{$server}", $rig->app('examples/db.php'), (int) $workers, $mode, self::EXPECT,
            ['DATABASE_URL' => $rig->mysqlUrl()]);
    }

    public function summary(ScenarioResult $result): string
    {
        $rows = [];
        foreach (self::WORKERS as $workers) {
            foreach (self::CONNECTIONS as $connections) {
                $x = self::x($workers, $connections);
                $sync = $result->find('sync', $x);
                $coroutine = $result->find('coroutine', $x);
                if ($sync === null && $coroutine === null) {
                    continue;
                }
                $rows[] = [(string) $workers, (string) $connections,
                    $sync === null ? '—' : Markdown::rateRange($sync), $coroutine === null ? '—' : Markdown::rateRange($coroutine),
                    Markdown::ratio($result->ratio('coroutine', 'sync', $x)), Markdown::metric($sync, 'p99_ms'), Markdown::metric($coroutine, 'p99_ms')];
            }
        }

        return Markdown::table(['Workers', 'Concurrency', 'sync req/s', 'coroutine req/s', 'coroutine / sync', 'sync p99 ms', 'coroutine p99 ms'], $rows);
    }

    public function chart(ScenarioResult $result): ?Chart
    {
        return Charts::series($result, 'Three queries per request: sync vs coroutine (higher is better)', 'workers, concurrency', Chart::BARS);
    }

    private static function x(int $workers, int $connections): string
    {
        return "w={$workers} c={$connections}";
    }
}
