<?php

declare(strict_types=1);

/*
 * For bench/micro/http-instructions.sh: an Http\Server in this process (no master, no
 * fork, so valgrind sees all of it) serving APP on 127.0.0.1:PORT until it has answered N
 * requests. The code measured is PETREL_ROOT's (default: this checkout), so one copy of
 * this script can measure an older checkout that does not have it.
 *
 *   [PETREL_ROOT=DIR] [WORKER=1] php bench/micro/instructions/server.php PORT N [APP]
 *
 * WORKER=1 sets the server up as a bin/petrel worker does (Console\Internal\HttpWorker):
 * requests counted by RequestMetrics and the fatal-error 500 (FatalErrorResponder) in
 * place, so the figure is the worker's path, not only the server's.
 */

use Petrel\Console\Internal\FatalErrorResponder;
use Petrel\Http\Handlers;
use Petrel\Http\RequestHandler;
use Petrel\Http\Server;
use Petrel\Http\ServerConfig;
use Petrel\Observability\RequestMetrics;
use Petrel\Process\WorkerContext;

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
    $handler = Handlers::from(require $app);
    if (getenv('WORKER') !== '1') {
        $server = new Server($handler);
    } elseif (is_subclass_of(FatalErrorResponder::class, RequestHandler::class)) {
        // Checkouts before 2026-11-27, where the responder wrapped every request.
        $handler = new FatalErrorResponder($handler, new WorkerContext(1, STDERR), '512M');
        $handler->register();
        $server = new Server($handler, new ServerConfig(), new RequestMetrics());
    } else {
        $server = new Server($handler, new ServerConfig(), new RequestMetrics());
        (new FatalErrorResponder($server, new WorkerContext(1, STDERR), '512M'))->register();
    }
    $server->onRequest(static function (int $served) use ($server, $limit): void {
        if ($served >= (int) $limit) {
            $server->stop();
        }
    });
    $server->serve(listen("127.0.0.1:{$port}"), 1.0);
});
