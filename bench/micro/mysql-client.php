<?php

declare(strict_types=1);

/*
 * MySQL client micro-benchmark: php bench/micro/mysql-client.php [seconds per case, default 2]
 *
 * Against the server in $MYSQL_URL (skipped with a message when unset or unreachable). On
 * one connection, in one process, one query at a time, the seed workload's three queries
 * (`select * from test where id = 1`, `… id = 2`, `select * from test limit 5`; table
 * `test(id, name, email)` with 1,000 rows, created as examples/db.php does if missing):
 *
 *   Petrel, COM_QUERY (text protocol, no parameters)
 *   Petrel, prepared (binary protocol, `?` parameters, statement cache)
 *   PDO pdo_mysql (mysqlnd, C): query() of the same text, and native prepares
 *
 * The cases take turns (15 rounds each) so that other load on the machine hits them alike.
 * Prints queries per second (median round) and the ratio to PDO query().
 *
 * Then the same four ways of asking for a 10,000-row result (`test` joined with its first
 * ten rows: id, name, email), where the time goes into decoding rows: this process's CPU
 * time per query (user + system, getrusage; the server's work is the same for all and not
 * in it), median round, and the ratio to PDO query()'s.
 */

require __DIR__ . '/../../vendor/autoload.php';

use Petrel\Database\DatabaseConfig;
use Petrel\Database\Mysql\MysqlConnection;

use function Petrel\run;

$seconds = max(0.2, (float) ($argv[1] ?? 2));
const ROUNDS = 15;
$url = getenv('MYSQL_URL');
if (!is_string($url) || $url === '') {
    echo "skipped: set MYSQL_URL (e.g. mysql://user:pass@127.0.0.1:3306/db)\n";
    exit(0);
}
$config = DatabaseConfig::fromUrl($url);

/**
 * Runs each case's $batch ($queries queries) in turns, ROUNDS times for about
 * $seconds / ROUNDS each, so that noise from other processes hits every case alike; returns
 * for each case the median round's queries per second and this process's CPU time per
 * query in microseconds (user + system: the client's work, not the server's).
 *
 * @param array<string, Closure(): void> $cases
 * @return array<string, array{float, float}> label => [queries/s, CPU µs per query]
 */
function measure(float $seconds, array $cases, int $queries, int $warmup): array
{
    $rates = $cpu = [];
    foreach ($cases as $label => $batch) {
        for ($i = 0; $i < $warmup; $i++) {
            $batch(); // warm up: caches, JIT
        }
        $rates[$label] = $cpu[$label] = [];
    }
    for ($round = 0; $round < ROUNDS; $round++) {
        foreach ($cases as $label => $batch) {
            $done = 0;
            $startCpu = cpuMicroseconds();
            $start = hrtime(true);
            $end = $start + (int) ($seconds / ROUNDS * 1e9);
            do {
                $batch();
                $done += $queries;
                $now = hrtime(true);
            } while ($now < $end);
            $rates[$label][] = $done / (($now - $start) / 1e9);
            $cpu[$label][] = (cpuMicroseconds() - $startCpu) / $done;
        }
    }
    $medians = [];
    foreach ($cases as $label => $batch) {
        sort($rates[$label]);
        sort($cpu[$label]);
        $medians[$label] = [$rates[$label][intdiv(ROUNDS, 2)], $cpu[$label][intdiv(ROUNDS, 2)]];
    }

    return $medians;
}

/** This process's CPU time (user + system), in microseconds. */
function cpuMicroseconds(): float
{
    $usage = getrusage();

    return $usage['ru_utime.tv_sec'] * 1e6 + $usage['ru_utime.tv_usec'] + $usage['ru_stime.tv_sec'] * 1e6 + $usage['ru_stime.tv_usec'];
}

/** @return ?PDO a pdo_mysql connection to the same database, or null without the extension */
function pdo(DatabaseConfig $config): ?PDO
{
    if (!extension_loaded('pdo_mysql')) {
        return null;
    }
    $dsn = $config->socket !== null
        ? "mysql:unix_socket={$config->socket};dbname={$config->database};charset=utf8mb4"
        : "mysql:host={$config->host};port=" . ($config->port ?? 3306) . ";dbname={$config->database};charset=utf8mb4";

    return new PDO($dsn, $config->user, $config->password, [
        PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION,
        PDO::ATTR_DEFAULT_FETCH_MODE => PDO::FETCH_ASSOC,
        PDO::ATTR_STRINGIFY_FETCHES => false,
    ]);
}

run(static function () use ($config, $seconds): void {
    try {
        $db = MysqlConnection::connect($config);
    } catch (Throwable $e) {
        echo "skipped: no MySQL server at {$config->where()} ({$e->getMessage()})\n";

        return;
    }
    $db->execute('CREATE TABLE IF NOT EXISTS test (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, email VARCHAR(128) NOT NULL)');
    if ($db->query('SELECT COUNT(*) AS n FROM test')[0]['n'] < 1000) {
        foreach (array_chunk(range(1, 1000), 250) as $ids) {
            $params = [];
            foreach ($ids as $id) {
                array_push($params, $id, "user{$id}", "user{$id}@example.com");
            }
            $db->execute('INSERT IGNORE INTO test (id, name, email) VALUES ' . implode(', ', array_fill(0, count($ids), '(?, ?, ?)')), $params);
        }
    }
    $jit = ini_get('opcache.enable_cli') && ini_get('opcache.jit') ? ini_get('opcache.jit') : 'off';
    printf("server %s at %s; PHP %s, JIT %s; %d rounds of %.2f s per case\n", $db->serverVersion(), $config->where(), PHP_VERSION, $jit, ROUNDS, $seconds / ROUNDS);

    $cases = [
        'Petrel COM_QUERY (text, no params)' => static function () use ($db): void {
            $db->query('select * from test where id = 1');
            $db->query('select * from test where id = 2');
            $db->query('select * from test limit 5');
        },
        'Petrel prepared (binary, ? params, cached)' => static function () use ($db): void {
            $db->query('select * from test where id = ?', [1]);
            $db->query('select * from test where id = ?', [2]);
            $db->query('select * from test limit ?', [5]);
        },
    ];
    $pdo = pdo($config);
    if ($pdo === null) {
        echo "PDO: pdo_mysql is not installed, no comparison (Debian: apt-get install php8.2-mysql)\n";
    } else {
        $cases['PDO query() (text, no params)'] = static function () use ($pdo): void {
            $pdo->query('select * from test where id = 1')->fetchAll();
            $pdo->query('select * from test where id = 2')->fetchAll();
            $pdo->query('select * from test limit 5')->fetchAll();
        };
        $native = pdo($config);
        \assert($native !== null);
        $native->setAttribute(PDO::ATTR_EMULATE_PREPARES, false);
        $byId = $native->prepare('select * from test where id = ?');
        $limit = $native->prepare('select * from test limit ?');
        $cases['PDO native prepared (binary, ? params, reused)'] = static function () use ($byId, $limit): void {
            foreach ([[$byId, 1], [$byId, 2], [$limit, 5]] as [$statement, $param]) {
                $statement->bindValue(1, $param, PDO::PARAM_INT);
                $statement->execute();
                $statement->fetchAll();
            }
        };
    }
    $rates = array_map(static fn (array $medians): float => $medians[0], measure($seconds, $cases, 3, 300));
    $reference = $rates['PDO query() (text, no params)'] ?? null;
    foreach ($rates as $label => $rate) {
        printf("%-50s %10s queries/s%s\n", $label, number_format($rate), $reference === null ? '' : sprintf('  %.2fx PDO query()', $rate / $reference));
    }

    // 10,000 rows a query: the first ten rows of `test` times its 1,000.
    $rows = 'select a.id, a.name, a.email from test a join test b on b.id <= ?';
    $text = str_replace('?', '10', $rows);
    $count = count($db->query($text));
    if ($count !== 10000) {
        throw new RuntimeException("The 10,000-row query returned {$count} rows");
    }
    $cases = [
        'Petrel COM_QUERY (text, no params)' => static function () use ($db, $text): void {
            $db->query($text);
        },
        'Petrel prepared (binary, ? params, cached)' => static function () use ($db, $rows): void {
            $db->query($rows, [10]);
        },
    ];
    if ($pdo !== null) {
        $cases['PDO query() (text, no params)'] = static function () use ($pdo, $text): void {
            $pdo->query($text)->fetchAll();
        };
        $statement = $native->prepare($rows);
        $cases['PDO native prepared (binary, ? params, reused)'] = static function () use ($statement): void {
            $statement->bindValue(1, 10, PDO::PARAM_INT);
            $statement->execute();
            $statement->fetchAll();
        };
    }
    printf("\n10,000 rows a query, this process's CPU per query (decoding):\n");
    $cpu = array_map(static fn (array $medians): float => $medians[1], measure($seconds, $cases, 1, 5));
    $db->close();
    $reference = $cpu['PDO query() (text, no params)'] ?? null;
    foreach ($cpu as $label => $microseconds) {
        printf("%-50s %10s µs CPU%s\n", $label, number_format($microseconds), $reference === null ? '' : sprintf('  %.2fx PDO query()', $microseconds / $reference));
    }
});
