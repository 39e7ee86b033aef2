<?php

declare(strict_types=1);

/*
 * PostgreSQL client micro-benchmark: php bench/micro/pgsql-client.php [rounds]
 *
 * Against the server in $PGSQL_URL (pgsql://user:pass@host:port/db); skipped with a
 * message when it is not set or not reachable. Uses its own table petrel_bench_pg
 * (id, name, email; 1,000 rows), dropped afterwards.
 *
 * One connection, one query at a time, the seed workload's point lookup:
 *   Petrel query() with the statement cache (default: prepared on second use) and
 *   without it (statement_cache=0: simple protocol without parameters, unnamed statement
 *   with), an explicitly prepared statement; and ext-pgsql's blocking pg_query,
 *   pg_query_params and pg_execute on the same server — the floor: no event loop, no
 *   coroutine switch.
 * The seed request (id = 1, id = 2, limit 5), Petrel vs blocking pg_query.
 * Then 50 coroutines, each with its own connection, running the lookup concurrently.
 *
 * Cases run round-robin, [rounds] times each (default 5), so background load hits them
 * alike; the median is printed, with the client's own CPU time per query (getrusage),
 * which shared machines disturb less than wall time.
 */

require __DIR__ . '/../../vendor/autoload.php';

use Petrel\Database\DatabaseConfig;
use Petrel\Database\Pgsql\PgsqlConnection;

use function Petrel\parallel;
use function Petrel\run;

$rounds = max(1, (int) ($argv[1] ?? 5));
$url = getenv('PGSQL_URL');
if (!is_string($url) || $url === '' || !extension_loaded('pgsql')) {
    echo "skipped: set PGSQL_URL (e.g. pgsql://user:pass@127.0.0.1:5432/db) and load ext-pgsql\n";

    exit(0);
}
$config = DatabaseConfig::fromUrl($url);
const TABLE = 'petrel_bench_pg';

function cpuSeconds(): float
{
    $usage = getrusage();

    return $usage['ru_utime.tv_sec'] + $usage['ru_utime.tv_usec'] / 1e6 + $usage['ru_stime.tv_sec'] + $usage['ru_stime.tv_usec'] / 1e6;
}

/**
 * Runs the cases round-robin, $rounds times, and prints each one's median.
 *
 * @param array<string, Closure(): void> $cases
 * @return array<string, float> queries (or requests) per second by case
 */
function compare(int $rounds, int $count, array $cases, string $unit = 'queries'): array
{
    $wall = $cpu = [];
    for ($round = 0; $round < $rounds; $round++) {
        foreach ($cases as $label => $run) {
            $startCpu = cpuSeconds();
            $start = hrtime(true);
            $run();
            $wall[$label][] = (hrtime(true) - $start) / 1e9;
            $cpu[$label][] = cpuSeconds() - $startCpu;
        }
    }
    $rates = [];
    foreach ($cases as $label => $run) {
        sort($wall[$label]);
        sort($cpu[$label]);
        $seconds = $wall[$label][intdiv($rounds, 2)];
        $rates[$label] = $count / $seconds;
        printf(
            "  %-52s %9s %s/s  %6.1f µs wall  %5.1f µs CPU\n",
            $label,
            number_format($rates[$label]),
            $unit,
            $seconds / $count * 1e6,
            $cpu[$label][intdiv($rounds, 2)] / $count * 1e6,
        );
    }

    return $rates;
}

function conninfo(DatabaseConfig $config): string
{
    return sprintf(
        "host='%s' port='%d' user='%s' password='%s' dbname='%s'",
        $config->socket ?? $config->host ?? 'localhost',
        $config->port ?? 5432,
        addcslashes((string) $config->user, "'\\"),
        addcslashes((string) $config->password, "'\\"),
        addcslashes((string) $config->database, "'\\"),
    );
}

run(static function () use ($config, $rounds): void {
    try {
        $db = PgsqlConnection::connect($config);
    } catch (Throwable $e) {
        printf("skipped: no PostgreSQL server at %s (%s)\n", $config->where(), $e->getMessage());

        return;
    }
    $db->execute('DROP TABLE IF EXISTS ' . TABLE);
    $db->execute('CREATE TABLE ' . TABLE . ' (id int PRIMARY KEY, name varchar(64) NOT NULL, email varchar(128) NOT NULL)');
    $db->execute('INSERT INTO ' . TABLE . " SELECT g, 'name ' || g, 'user' || g || '@example.com' FROM generate_series(1, 1000) g");
    $db->execute('ANALYZE ' . TABLE);

    $uncached = PgsqlConnection::connect(new DatabaseConfig(
        $config->driver, $config->host, $config->port, $config->user, $config->password, $config->database, $config->socket,
        ['statement_cache' => '0'] + $config->options,
    ));
    $blocking = pg_connect(conninfo($config), PGSQL_CONNECT_FORCE_NEW);
    if ($blocking === false) {
        throw new RuntimeException('blocking pg_connect failed');
    }
    $table = TABLE;
    $plain = "select * from {$table} where id = 1";
    $param = "select * from {$table} where id = ?";
    $native = "select * from {$table} where id = \$1";
    $statement = $db->prepare($param);
    pg_prepare($blocking, 'bench', $native);

    $n = 5_000;
    echo "One connection, one query at a time ({$n} per round, {$rounds} rounds):\n";
    $loop = static fn (Closure $query): Closure => static function () use ($query, $n): void {
        for ($i = 0; $i < $n; $i++) {
            $query(1 + $i % 1000);
        }
    };
    $rates = compare($rounds, $n, [
        'Petrel, literal id, statement cache' => $loop(static fn (int $id) => $db->query($plain)),
        'Petrel, literal id, no cache (simple protocol)' => $loop(static fn (int $id) => $uncached->query($plain)),
        'Petrel, ? parameter, statement cache' => $loop(static fn (int $id) => $db->query($param, [$id])),
        'Petrel, ? parameter, no cache (unnamed statement)' => $loop(static fn (int $id) => $uncached->query($param, [$id])),
        'Petrel, prepare() once, ->query([id])' => $loop(static fn (int $id) => $statement->query([$id])),
        'blocking pg_query' => $loop(static fn (int $id) => pg_fetch_all(pg_query($blocking, $plain))),
        'blocking pg_query_params' => $loop(static fn (int $id) => pg_fetch_all(pg_query_params($blocking, $native, [$id]))),
        'blocking pg_prepare once, pg_execute' => $loop(static fn (int $id) => pg_fetch_all(pg_execute($blocking, 'bench', [$id]))),
    ]);
    printf(
        "  Petrel / blocking: literal %.0f%% (no cache %.0f%%), parameter %.0f%% (no cache %.0f%%), prepared %.0f%%\n",
        100 * $rates['Petrel, literal id, statement cache'] / $rates['blocking pg_query'],
        100 * $rates['Petrel, literal id, no cache (simple protocol)'] / $rates['blocking pg_query'],
        100 * $rates['Petrel, ? parameter, statement cache'] / $rates['blocking pg_query_params'],
        100 * $rates['Petrel, ? parameter, no cache (unnamed statement)'] / $rates['blocking pg_query_params'],
        100 * $rates['Petrel, prepare() once, ->query([id])'] / $rates['blocking pg_prepare once, pg_execute'],
    );
    $statement->close();

    $requests = 2_000;
    echo "\nThe seed request (id = 1, id = 2, limit 5) on one connection ({$requests} per round):\n";
    $seed = static fn (Closure $query): Closure => static function () use ($query, $requests, $table): void {
        for ($i = 0; $i < $requests; $i++) {
            $query("select * from {$table} where id = 1");
            $query("select * from {$table} where id = 2");
            $query("select * from {$table} limit 5");
        }
    };
    $rates = compare($rounds, $requests, [
        'Petrel (statement cache)' => $seed(static fn (string $sql) => $db->query($sql)),
        'Petrel (no cache)' => $seed(static fn (string $sql) => $uncached->query($sql)),
        'blocking pg_query' => $seed(static fn (string $sql) => pg_fetch_all(pg_query($blocking, $sql))),
    ], 'requests');
    printf("  Petrel / blocking: %.0f%%\n", 100 * $rates['Petrel (statement cache)'] / $rates['blocking pg_query']);
    pg_close($blocking);
    $uncached->close();

    $workers = 50;
    $each = 1_000;
    $start = hrtime(true);
    $connections = parallel(array_fill(0, $workers, static fn (): PgsqlConnection => PgsqlConnection::connect($config)));
    printf("\n%d connections opened concurrently in %.0f ms\n", $workers, (hrtime(true) - $start) / 1e6);
    compare($rounds, $workers * $each, [
        "{$workers} coroutines × own connection, ? parameter" => static function () use ($connections, $each, $param): void {
            parallel(array_map(static fn (PgsqlConnection $c) => static function () use ($c, $each, $param): void {
                for ($i = 0; $i < $each; $i++) {
                    $c->query($param, [1 + $i % 1000]);
                }
            }, $connections));
        },
    ]);
    foreach ($connections as $connection) {
        $connection->close();
    }
    $db->execute('DROP TABLE ' . TABLE);
    $db->close();
});

printf(
    "PHP %s, opcache.enable_cli=%s, JIT=%s, libpq %s\n",
    PHP_VERSION,
    ini_get('opcache.enable_cli') ?: '0',
    ini_get('opcache.jit') ?: 'off',
    PGSQL_LIBPQ_VERSION,
);
