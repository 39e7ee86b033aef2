<?php

declare(strict_types=1);

/*
 * A client that opens many connections to a server and holds them open, then probes the
 * server with fresh connections: "does a new client still get served while N others are
 * connected?". Plain PHP streams, no Petrel code, so it measures the server only.
 *
 *   php bench/lib/hold-connections.php PORT N [--request] [--probes=20] [--interval=0.25]
 *
 * --request  each held connection first sends one keep-alive GET and reads its answer (so
 *            it is an idle keep-alive connection, the common case), 10 s for all answers;
 *            without it the held connections have sent nothing (a slowloris-like client).
 * Prints one JSON object: opened, connect failures, answered (with --request), probes,
 * probe failures (no answer within --probe-timeout, default 1 s), probe latency ms
 * (max, p50), statuses seen by the probes.
 */

$port = (int) ($argv[1] ?? 0);
$count = (int) ($argv[2] ?? 0);
if ($port < 1 || $count < 0) {
    fwrite(STDERR, "usage: php hold-connections.php PORT N [--request] [--probes=20] [--interval=0.25] [--probe-timeout=1] [--hold=0]\n");
    exit(2);
}
$options = ['request' => false, 'probes' => 20, 'interval' => 0.25, 'probe-timeout' => 1.0, 'hold' => 0.0];
foreach (array_slice($argv, 3) as $arg) {
    if ($arg === '--request') {
        $options['request'] = true;
    } elseif (preg_match('/^--(probes|interval|probe-timeout|hold)=([\d.]+)$/', $arg, $m)) {
        $options[$m[1]] = (float) $m[2];
    } else {
        fwrite(STDERR, "hold-connections: unknown option {$arg}\n");
        exit(2);
    }
}

$request = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
$held = [];
$connectFailures = 0;
$answered = 0;
$started = microtime(true);
for ($i = 0; $i < $count; $i++) {
    $socket = @stream_socket_client("tcp://127.0.0.1:{$port}", $errno, $error, 5.0);
    if ($socket === false) {
        $connectFailures++;
        continue;
    }
    if ($options['request']) {
        fwrite($socket, $request);
    }
    $held[] = $socket;
}
$opened = microtime(true) - $started;
if ($options['request']) {
    // All answers within 10 s in all: a server that leaves some connections unaccepted must
    // not make us wait for its idle timeout before probing.
    $deadline = microtime(true) + 10.0;
    foreach ($held as $socket) {
        $left = max(0.01, $deadline - microtime(true));
        stream_set_timeout($socket, (int) $left, (int) (($left - (int) $left) * 1e6));
        $head = readResponse($socket);
        if ($head !== null && str_starts_with($head, 'HTTP/1.1 200')) {
            $answered++;
        }
    }
}
if ($options['hold'] > 0) {
    usleep((int) ($options['hold'] * 1e6));
}

$latencies = [];
$probeFailures = 0;
$statuses = [];
for ($i = 0; $i < (int) $options['probes']; $i++) {
    $t0 = microtime(true);
    $socket = @stream_socket_client("tcp://127.0.0.1:{$port}", $errno, $error, $options['probe-timeout']);
    $status = 'connect failed';
    if ($socket !== false) {
        stream_set_timeout($socket, (int) ceil($options['probe-timeout']));
        fwrite($socket, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        $head = readResponse($socket);
        $status = $head === null ? 'no answer' : substr($head, 9, 3);
        fclose($socket);
    }
    $ms = (microtime(true) - $t0) * 1000;
    $statuses[$status] = ($statuses[$status] ?? 0) + 1;
    $latencies[] = $ms;
    if ($status !== '200' || $ms > $options['probe-timeout'] * 1000) {
        $probeFailures++;
    }
    $rest = $options['interval'] - (microtime(true) - $t0);
    if ($rest > 0) {
        usleep((int) ($rest * 1e6));
    }
}
sort($latencies);
$stillOpen = 0; // held connections the server has not closed (an evicted one reads EOF)
foreach ($held as $socket) {
    stream_set_blocking($socket, false);
    $byte = @fread($socket, 1);
    $stillOpen += ($byte === '' && !feof($socket)) ? 1 : 0;
}

echo json_encode([
    'connections' => $count,
    'opened' => count($held),
    'connect_failures' => $connectFailures,
    'open_seconds' => round($opened, 2),
    'answered' => $options['request'] ? $answered : null,
    'still_open' => $stillOpen,
    'probes' => count($latencies),
    'probe_failures' => $probeFailures,
    'probe_ms_max' => $latencies === [] ? null : round(end($latencies), 1),
    'probe_ms_p50' => $latencies === [] ? null : round($latencies[intdiv(count($latencies), 2)], 1),
    'probe_statuses' => $statuses,
]), "\n";

/** The response head (and whatever body came with it), or null if none came in time. */
function readResponse($socket): ?string
{
    $data = '';
    while (!str_contains($data, "\r\n\r\n")) {
        $chunk = fread($socket, 8192);
        if ($chunk === false || $chunk === '') {
            $meta = stream_get_meta_data($socket);
            if ($meta['timed_out'] || feof($socket)) {
                return $data === '' ? null : $data;
            }
            continue;
        }
        $data .= $chunk;
    }

    return $data;
}
