<?php

// bin/petrel start examples/db.php — the seeds' database workload.
//   GET /           select * from test where id = 1; … id = 2; select * from test limit 5 → last as JSON
//   GET /slow?ms=N  first a server-side sleep of N ms (SELECT SLEEP / pg_sleep), then the same queries
// DATABASE_URL picks the database (mysql://…, pgsql://…, sqlite:///path); SQLite by default.
declare(strict_types=1);

use Petrel\Database\Database;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Pool\PoolConfig;

$db = Database::fromEnv('sqlite://' . sys_get_temp_dir() . '/petrel-example-db.sqlite', new PoolConfig(max: 64));

// Every worker boots this file, possibly at the same moment: create and fill idempotently.
$driver = $db->driverName();
$db->execute(match ($driver) {
    'mysql' => 'CREATE TABLE IF NOT EXISTS test (id INT PRIMARY KEY, name VARCHAR(64) NOT NULL, email VARCHAR(128) NOT NULL)',
    default => 'CREATE TABLE IF NOT EXISTS test (id INTEGER PRIMARY KEY, name VARCHAR(64) NOT NULL, email VARCHAR(128) NOT NULL)',
});
if ($db->scalar('SELECT COUNT(*) FROM test') < 1000) {
    $insert = match ($driver) {
        'mysql' => 'INSERT IGNORE INTO test (id, name, email) VALUES ',
        'pgsql' => 'INSERT INTO test (id, name, email) VALUES ',
        default => 'INSERT OR IGNORE INTO test (id, name, email) VALUES ',
    };
    $conflict = $driver === 'pgsql' ? ' ON CONFLICT (id) DO NOTHING' : '';
    foreach (array_chunk(range(1, 1000), 250) as $ids) {
        $params = [];
        foreach ($ids as $id) {
            array_push($params, $id, "user{$id}", "user{$id}@example.com");
        }
        $db->execute($insert . implode(', ', array_fill(0, count($ids), '(?, ?, ?)')) . $conflict, $params);
    }
}

$sleep = match ($driver) {
    'mysql' => static fn (int $ms) => $db->query('SELECT SLEEP(?)', [$ms / 1000]),
    'pgsql' => static fn (int $ms) => $db->query('SELECT pg_sleep(?)', [$ms / 1000]),
    // SQLite is embedded: there is no server to wait on, so the wait blocks the worker.
    default => static fn (int $ms) => usleep($ms * 1000),
};

return static function (Request $request) use ($db, $sleep): Response {
    $path = $request->getPath();
    if ($path === '/slow') {
        $ms = $request->getQueryParam('ms', '10');
        if (!is_string($ms) || !ctype_digit($ms) || (int) $ms > 60000) {
            return Response::text("ms must be a whole number of milliseconds, at most 60000\n", 400);
        }
        $sleep((int) $ms);
    } elseif ($path !== '/') {
        return Response::text("Not Found\n", 404);
    }
    $db->query('select * from test where id = 1');
    $db->query('select * from test where id = 2');

    return Response::json($db->query('select * from test limit 5'));
};
