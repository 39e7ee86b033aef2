<?php

/*
 * The floor for a hello world served by PHP on this machine, for bench/hello and `petrel
 * bench hello`: what the interpreter, its stream functions and the kernel cost per
 * keep-alive request when PHP does nothing else. Not a server to use: no parser (a request
 * is whatever ends in a blank line, answered with the same bytes), no timeouts, no limits,
 * no error handling. Just enough HTTP/1.0 for ApacheBench (`petrel bench --load=ab`):
 * keep-alive when the request asks for it (and says so), else the connection is closed
 * after the answer.
 *
 *   php bench/apps/bare-hello.php PORT [WORKERS]
 *
 * WORKERS processes (default 2) share one listening socket, each in a stream_select()
 * loop over its connections. SIGTERM to the first process stops them all.
 */

declare(strict_types=1);

[, $port, $workers] = $argv + [1 => '', 2 => '2'];
if (!ctype_digit($port) || !ctype_digit($workers) || (int) $workers < 1) {
    fwrite(STDERR, "usage: bare-hello.php PORT [WORKERS]\n");
    exit(2);
}
$server = stream_socket_server("tcp://127.0.0.1:{$port}", $errno, $error);
if ($server === false) {
    fwrite(STDERR, "bare-hello: cannot listen on 127.0.0.1:{$port}: {$error}\n");
    exit(1);
}
stream_set_blocking($server, false);

$children = [];
$parent = getmypid();
for ($i = 0; $i < (int) $workers; ++$i) {
    $pid = pcntl_fork();
    if ($pid === 0) {
        serve($server, $parent);
        exit(0);
    }
    $children[] = $pid;
}
pcntl_async_signals(true);
$stop = static function () use ($children): never {
    foreach ($children as $pid) {
        posix_kill($pid, SIGTERM);
    }
    exit(0);
};
pcntl_signal(SIGTERM, $stop, false); // not restarting pcntl_wait(): the handler runs at once
pcntl_signal(SIGINT, $stop, false);
while (pcntl_wait($status) > 0) {
    // a worker died: the bench notices (fewer requests), nothing to do here
}

/** @param resource $server */
function serve($server, int $parent): never
{
    $response = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!";
    $keepAlive10 = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\nConnection: keep-alive\r\n\r\nHello, World!";
    $clients = [];
    $buffers = [];
    while (true) {
        $read = $clients;
        $read[] = $server;
        $write = $except = null;
        if (stream_select($read, $write, $except, 1) < 1) {
            if (posix_getppid() !== $parent) {
                exit(0); // the first process is gone (killed outright): do not serve on, orphaned
            }
            continue;
        }
        foreach ($read as $stream) {
            if ($stream === $server) {
                $client = @stream_socket_accept($server, 0);
                if ($client !== false) {
                    stream_set_blocking($client, false);
                    $clients[(int) $client] = $client;
                    $buffers[(int) $client] = '';
                }
                continue;
            }
            $id = (int) $stream;
            $data = fread($stream, 65536);
            if ($data === '' || $data === false) {
                fclose($stream);
                unset($clients[$id], $buffers[$id]);
                continue;
            }
            $buffer = $buffers[$id] . $data;
            $requests = substr_count($buffer, "\r\n\r\n");
            if ($requests > 0) {
                if (!str_contains($buffer, " HTTP/1.0\r\n")) {
                    fwrite($stream, str_repeat($response, $requests));
                } elseif (stripos($buffer, "\r\nConnection: keep-alive\r\n") !== false) {
                    fwrite($stream, str_repeat($keepAlive10, $requests)); // ab -k
                } else {
                    fwrite($stream, $response); // HTTP/1.0 without keep-alive: answer, close
                    fclose($stream);
                    unset($clients[$id], $buffers[$id]);
                    continue;
                }
                $buffer = substr($buffer, strrpos($buffer, "\r\n\r\n") + 4);
            }
            $buffers[$id] = $buffer;
        }
    }
}
