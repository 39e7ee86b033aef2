<?php

// The seeds' "resident-sync" baseline for bench/db: the same three queries as
// examples/db.php through one persistent PDO connection per worker (mysqlnd, in C).
// PDO blocks the whole worker on every query: run it with --mode=sync.
declare(strict_types=1);

use Petrel\Database\DatabaseConfig;
use Petrel\Http\Request;
use Petrel\Http\Response;

$config = DatabaseConfig::fromEnv('DATABASE_URL');
if ($config->driver !== 'mysql') {
    throw new RuntimeException('bench/apps/db-pdo.php needs a mysql:// DATABASE_URL');
}
$pdo = new PDO(
    sprintf('mysql:host=%s;port=%d;dbname=%s;charset=utf8mb4', $config->host ?? '127.0.0.1', $config->port ?? 3306, $config->database ?? ''),
    $config->user,
    $config->password,
    [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION, PDO::ATTR_DEFAULT_FETCH_MODE => PDO::FETCH_ASSOC, PDO::ATTR_EMULATE_PREPARES => false],
);

return static function (Request $request) use ($pdo): Response {
    if ($request->getPath() === '/slow') {
        $pdo->query('SELECT SLEEP(' . ((int) $request->getQueryParam('ms', '10')) / 1000 . ')')->fetchAll();
    }
    $pdo->query('select * from test where id = 1')->fetchAll();
    $pdo->query('select * from test where id = 2')->fetchAll();

    return Response::json($pdo->query('select * from test limit 5')->fetchAll());
};
