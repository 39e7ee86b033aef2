<?php

declare(strict_types=1);

/*
 * CPU instructions per PostgreSQL query through PgsqlConnection, counted by valgrind
 * (callgrind): nearly the same figure on every run, however loaded the machine is.
 *
 *   PGSQL_URL=pgsql://user:pass@127.0.0.1:5432/db php -d opcache.enable_cli=1 bench/micro/pgsql-instructions.php [--case=NAME]
 *
 * Cases (all by default), each the point lookup of pgsql-client.php (a row of three
 * columns by primary key, in a temporary table) on one connection, one query at a time:
 *   param   `WHERE id = ?` with a parameter, inside run() (a coroutine, as in a worker):
 *           the statement cache's prepared statement, pg_send_execute, wait, read, rows
 *   literal `WHERE id = 1` with no parameter, inside run()
 *   main    the `?` query from the main context, outside any coroutine (a script, php-fpm)
 *   pgsql   the floor: ext-pgsql's blocking pg_execute() of the same prepared statement and
 *           pg_fetch_all(), no event loop, no PHP between (all C)
 * Each case runs at two loop lengths and the difference is divided by the extra queries,
 * so start-up cancels out. Needs a real server (PGSQL_URL). The instructions are the
 * client's: libpq's and ext-pgsql's C and Petrel's PHP; the server's work and the
 * syscalls' kernel time are not in the figure (`strace -c -f` on the same command counts
 * the syscalls). opcache and JIT settings of this process are passed on.
 */

require __DIR__ . '/../../vendor/autoload.php';
require __DIR__ . '/../lib/callgrind.php';

use Petrel\Database\DatabaseConfig;
use Petrel\Database\Pgsql\PgsqlConnection;

use function Petrel\run;

const CASES = ['param' => [500, 1500], 'literal' => [500, 1500], 'main' => [500, 1500], 'pgsql' => [500, 1500]];

$options = getopt('', ['case:', 'loop:']);
$only = $options['case'] ?? null;
if (\is_string($only) && !isset(CASES[$only])) {
    fwrite(STDERR, "unknown case {$only} (cases: " . implode(', ', array_keys(CASES)) . ")\n");
    exit(2);
}
$cases = \is_string($only) ? [$only => CASES[$only]] : CASES;
$url = getenv('PGSQL_URL');
if (!\is_string($url) || $url === '' || !extension_loaded('pgsql')) {
    echo "skipped: set PGSQL_URL (e.g. pgsql://user:pass@127.0.0.1:5432/db) and load ext-pgsql\n";
    exit(0);
}
$config = DatabaseConfig::fromUrl($url);
if (!isset($options['loop'])) {
    try {
        run(static fn () => PgsqlConnection::connect($config)->close());
    } catch (Throwable $e) {
        printf("skipped: no PostgreSQL server at %s (%s)\n", DatabaseConfig::redact($url), $e->getMessage());
        exit(0);
    }
    printf("pgsql-instructions — PHP %s, opcache %s, JIT %s\n", PHP_VERSION,
        ini_get('opcache.enable_cli') ? 'on' : 'off', ini_get('opcache.jit') ?: 'off');
    foreach ($cases as $case => [$short, $long]) {
        printf("%-8s %10.0f instructions/query\n", $case, (callgrindInstructions(__FILE__, $case, $long) - callgrindInstructions(__FILE__, $case, $short)) / ($long - $short));
    }
    exit(0);
}
$loop = \is_string($options['loop']) ? (int) $options['loop'] : 0;
$case = array_key_first($cases);
$setup = [
    'CREATE TEMPORARY TABLE bench_pg (id int PRIMARY KEY, name text NOT NULL, email text NOT NULL)',
    "INSERT INTO bench_pg VALUES (1, 'name 1', 'user1@example.com'), (2, 'name 2', 'user2@example.com')",
];
$expected = [['id' => 1, 'name' => 'name 1', 'email' => 'user1@example.com']];
if ($case === 'pgsql') {
    $parts = parse_url($url);
    $handle = pg_connect(sprintf("host=%s port=%d dbname=%s user=%s password=%s", $parts['host'] ?? '127.0.0.1',
        $parts['port'] ?? 5432, ltrim($parts['path'] ?? '', '/'), urldecode($parts['user'] ?? ''), urldecode($parts['pass'] ?? '')));
    foreach ($setup as $sql) {
        pg_query($handle, $sql);
    }
    pg_prepare($handle, 'lookup', 'SELECT id, name, email FROM bench_pg WHERE id = $1');
    $rows = [];
    for ($i = 0; $i < $loop; ++$i) {
        $rows = pg_fetch_all(pg_execute($handle, 'lookup', [1]));
    }
    if ($loop > 0 && $rows != $expected) {
        throw new RuntimeException('the lookup returned something else');
    }
    exit(0);
}
$work = static function () use ($config, $case, $loop, $setup, $expected): void {
    $db = PgsqlConnection::connect($config);
    foreach ($setup as $sql) {
        $db->query($sql);
    }
    $last = null;
    for ($i = 0; $i < $loop; ++$i) {
        $last = $case === 'literal'
            ? $db->query('SELECT id, name, email FROM bench_pg WHERE id = 1')
            : $db->query('SELECT id, name, email FROM bench_pg WHERE id = ?', [1]);
    }
    if ($loop > 0 && $last !== $expected) {
        throw new RuntimeException('the lookup returned something else');
    }
    $db->close();
};
$case === 'main' ? $work() : run($work);
