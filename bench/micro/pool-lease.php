<?php

declare(strict_types=1);

/*
 * Cost of a pooled query: `$db->first('SELECT … WHERE id = ?', [1])` on a SQLite file, each
 * call in a coroutine of its own as a request would make it (so every call leases a
 * connection from the pool and gives it back when the coroutine ends).
 *
 *   php bench/micro/pool-lease.php [--ops=50000] [--rounds=5] [--case=NAME] [--instructions]
 *
 * Cases (all by default):
 *   go      an empty coroutine (spawn + join): the floor the others stand on
 *   pdo     the same query on a raw PDO statement prepared once (execute + fetchAll), in a
 *           coroutine: what SqliteConnection adds is direct minus this
 *   direct  the query on a SqliteConnection, no pool (in a coroutine)
 *   first   one pooled query per coroutine: lease, query, release at coroutine end
 *   first2  two pooled queries per coroutine: the second one reuses the lease
 * Prints the best and median round in CPU µs per coroutine. --instructions runs each case
 * under valgrind (callgrind, instruction counts: steady on a noisy machine) at two loop
 * lengths and prints the difference per coroutine; it passes on this process's opcache and
 * JIT settings, so run it with the flags below to count what a worker runs:
 *
 *   php -d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M \
 *       bench/micro/pool-lease.php [--instructions]
 */

use Petrel\Database\Database;
use Petrel\Database\Sqlite\SqliteConnection;

use function Petrel\go;
use function Petrel\run;

require __DIR__ . '/../../vendor/autoload.php';
require __DIR__ . '/../lib/callgrind.php';

const CASES = ['go', 'pdo', 'direct', 'first', 'first2'];
const SQL = 'SELECT * FROM users WHERE id = ?';

$options = getopt('', ['ops:', 'rounds:', 'case:', 'instructions', 'loop:']);
$ops = max(1, (int) ($options['ops'] ?? 50000));
$rounds = max(1, (int) ($options['rounds'] ?? 5));
$cases = isset($options['case']) ? [(string) $options['case']] : CASES;
if (array_diff($cases, CASES) !== []) {
    fwrite(STDERR, "unknown case {$cases[0]} (cases: " . implode(', ', CASES) . ")\n");
    exit(2);
}

if (isset($options['instructions'])) {
    foreach ($cases as $case) {
        printf("%-8s %8.0f instructions/op\n", $case, instructionsPerOp($case));
    }
    exit(0);
}

$dir = sys_get_temp_dir() . '/petrel-pool-lease-' . getmypid();
register_shutdown_function(static fn () => exec('rm -rf ' . escapeshellarg($dir)));

run(static function () use ($dir, $cases, $ops, $rounds, $options): void {
    $operation = operations("{$dir}/bench.sqlite");
    if (isset($options['loop'])) { // one plain run, for instructionsPerOp()
        loop($operation[$cases[0]], (int) $options['loop']);

        return;
    }
    foreach ($cases as $case) {
        loop($operation[$case], min($ops, 2000)); // warm-up
        $times = [];
        for ($r = 0; $r < $rounds; ++$r) {
            $start = cpuMicroseconds();
            loop($operation[$case], $ops);
            $times[] = (cpuMicroseconds() - $start) / $ops;
        }
        sort($times);
        printf("%-8s best %6.2f µs/op   median %6.2f µs/op\n", $case, $times[0], $times[intdiv(count($times), 2)]);
    }
});

/** @return array<string, Closure(): mixed> */
function operations(string $path): array
{
    $db = Database::fromUrl("sqlite://{$path}");
    $db->execute('CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL)');
    $db->execute('INSERT OR REPLACE INTO users (id, name, email) VALUES (?, ?, ?)', [1, 'Ada', 'ada@example.org']);
    $db->pool()->releaseLease(); // the main context's lease, taken by the two lines above
    $direct = SqliteConnection::open($path);
    $pdo = new PDO("sqlite:{$path}", null, null, [ // as SqliteConnection opens it
        PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION,
        PDO::ATTR_STRINGIFY_FETCHES => false,
        PDO::SQLITE_ATTR_OPEN_FLAGS => PDO::SQLITE_OPEN_READWRITE | PDO::SQLITE_OPEN_CREATE | 0x8000, // SQLITE_OPEN_NOMUTEX
    ]);
    $statement = $pdo->prepare(SQL);

    return [
        'go' => static fn () => go(static fn () => null)->join(),
        'pdo' => static fn () => go(static function () use ($statement): mixed {
            $statement->execute([1]);

            return $statement->fetchAll(PDO::FETCH_ASSOC)[0] ?? null;
        })->join(),
        'direct' => static fn () => go(static fn () => $direct->query(SQL, [1])[0] ?? null)->join(),
        'first' => static fn () => go(static fn () => $db->first(SQL, [1]))->join(),
        'first2' => static fn () => go(static fn () => [$db->first(SQL, [1]), $db->first(SQL, [1])])->join(),
    ];
}

/** @param Closure(): mixed $operation */
function loop(Closure $operation, int $n): void
{
    for ($i = 0; $i < $n; ++$i) {
        $operation();
    }
}

/** CPU time used by this process (user + system): on a shared machine, steadier than wall time. */
function cpuMicroseconds(): float
{
    $usage = getrusage();

    return $usage['ru_utime.tv_sec'] * 1e6 + $usage['ru_utime.tv_usec'] + $usage['ru_stime.tv_sec'] * 1e6 + $usage['ru_stime.tv_usec'];
}

/** Callgrind's instruction count at two loop lengths; the difference cancels boot and set-up. */
function instructionsPerOp(string $case): float
{
    return (callgrindInstructions(__FILE__, $case, 1200) - callgrindInstructions(__FILE__, $case, 200)) / 1000;
}
