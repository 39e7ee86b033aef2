<?php

declare(strict_types=1);

/*
 * For bench/micro/http-instructions.sh: keep-alive GET / on C connections, N responses in
 * all, each connection pausing PAUSE ms between a response and its next request. The pause
 * is the point: under wrk a server that re-reads right after writing a response finds
 * nothing yet and has to go back to its loop; a client that answers instantly would let a
 * slowed-down (valgrind) server skip that and measure a path wrk never takes. Plain PHP
 * streams, no Petrel: the client is not what is measured.
 *
 *   php bench/micro/instructions/client.php PORT N [C=50] [PAUSE=2]
 */

[, $port, $total] = $argv + [1 => '', 2 => ''];
$connections = max(1, (int) ($argv[3] ?? 50));
$pause = (float) ($argv[4] ?? 2) / 1000;
if (!ctype_digit($port) || !ctype_digit($total)) {
    fwrite(STDERR, "usage: client.php PORT N [CONNECTIONS] [PAUSE_MS]\n");
    exit(2);
}
$total = (int) $total;
$request = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
$sockets = $dueAt = $buffers = $waiting = [];
$connect = static function () use ($port) {
    $socket = stream_socket_client("tcp://127.0.0.1:{$port}", $errno, $error, 5);
    if ($socket === false) {
        fwrite(STDERR, "cannot connect to 127.0.0.1:{$port}: {$error}\n");
        exit(1);
    }
    stream_set_blocking($socket, false);

    return $socket;
};
for ($i = 0; $i < $connections; $i++) {
    $sockets[$i] = $connect();
    $dueAt[$i] = 0.0;
    $buffers[$i] = '';
}
$sent = $done = 0;
while ($done < $total) {
    $now = microtime(true);
    foreach ($dueAt as $i => $due) {
        if ($due <= $now && $sent < $total) {
            fwrite($sockets[$i], $request);
            $sent++;
            unset($dueAt[$i]);
            $waiting[$i] = $sockets[$i];
        }
    }
    if ($waiting === []) {
        usleep(100);
        continue;
    }
    $read = $waiting;
    $write = $except = null;
    if (!stream_select($read, $write, $except, 0, 1000)) {
        continue;
    }
    foreach ($read as $i => $socket) {
        $data = fread($socket, 65536);
        if ($data === '' || $data === false) {
            fwrite(STDERR, "the server closed connection {$i} after {$done} responses\n");
            exit(1);
        }
        $buffers[$i] .= $data;
        // One response at a time per connection: complete when its Content-Length is in.
        $end = strpos($buffers[$i], "\r\n\r\n");
        if ($end !== false && preg_match('/content-length: *(\d+)/i', substr($buffers[$i], 0, $end), $m)
            && strlen($buffers[$i]) >= $end + 4 + (int) $m[1]) {
            if ($done + 1 < $total && preg_match('/^connection: *close/im', substr($buffers[$i], 0, $end))) {
                fclose($socket); // the server's cap on requests per connection: reconnect, as wrk does
                $sockets[$i] = $connect();
            }
            $buffers[$i] = '';
            $done++;
            unset($waiting[$i]);
            $dueAt[$i] = microtime(true) + $pause;
        }
    }
}
