<?php

declare(strict_types=1);

/*
 * For bench/micro/http-instructions.sh: an Http\Server in this process (no master, no
 * fork, so valgrind sees all of it) serving APP on 127.0.0.1:PORT until it has answered N
 * requests. The code measured is PETREL_ROOT's (default: this checkout), so one copy of
 * this script can measure an older checkout that does not have it.
 *
 *   [PETREL_ROOT=DIR] php bench/micro/instructions/server.php PORT N [APP]
 */

use Petrel\Http\Handlers;
use Petrel\Http\Server;

use function Petrel\run;
use function Petrel\Socket\listen;

$root = getenv('PETREL_ROOT') ?: __DIR__ . '/../../..';
require $root . '/vendor/autoload.php';

[, $port, $limit] = $argv + [1 => '', 2 => ''];
$app = $argv[3] ?? $root . '/examples/hello.php';
if (!ctype_digit($port) || !ctype_digit($limit)) {
    fwrite(STDERR, "usage: server.php PORT N [APP]\n");
    exit(2);
}

run(static function () use ($port, $limit, $app): void {
    $server = new Server(Handlers::from(require $app));
    $server->onRequest(static function (int $served) use ($server, $limit): void {
        if ($served >= (int) $limit) {
            $server->stop();
        }
    });
    $server->serve(listen("127.0.0.1:{$port}"), 1.0);
});
