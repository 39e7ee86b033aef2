<?php

declare(strict_types=1);

/*
 * A short loop of queries for counting the MySQL client's system calls per query:
 *
 *   strace -f -c -o /tmp/counts php bench/micro/mysql-syscalls.php [queries, default 2000] [pool|direct]
 *
 * Against the server in $MYSQL_URL. `pool` (default) runs each query as a request does
 * (examples/db.php): in its own coroutine through a Database pool, so the pool's lease and
 * its liveness check are counted; `direct` queries one MysqlConnection. Run it twice with
 * different lengths and subtract to cancel out start-up (connect, autoload, opcache).
 */

require __DIR__ . '/../../vendor/autoload.php';

use Petrel\Database\Database;
use Petrel\Database\DatabaseConfig;
use Petrel\Database\Mysql\MysqlConnection;

use function Petrel\go;
use function Petrel\run;

$queries = max(1, (int) ($argv[1] ?? 2000));
$mode = $argv[2] ?? 'pool';
$url = getenv('MYSQL_URL');
if (!is_string($url) || $url === '') {
    fwrite(STDERR, "set MYSQL_URL (e.g. mysql://user:pass@127.0.0.1:3306/db)\n");
    exit(1);
}

run(static function () use ($queries, $mode, $url): void {
    if ($mode === 'direct') {
        $db = MysqlConnection::connect(DatabaseConfig::fromUrl($url));
        for ($i = 0; $i < $queries; ++$i) {
            $db->query('select * from test where id = 1');
        }
    } else {
        $db = Database::fromUrl($url);
        for ($i = 0; $i < $queries; ++$i) {
            go(static fn () => $db->query('select * from test where id = 1'))->join();
        }
    }
    $db->close();
});
