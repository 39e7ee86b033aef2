<?php

declare(strict_types=1);

/*
 * Redis GET loop, Petrel's client against phpredis (C): php bench/micro/redis-vs-phpredis.php [seconds per case, default 2]
 *
 * Against the server in $REDIS_URL (default redis://127.0.0.1:6379/0); skipped with a
 * message when none answers or phpredis is not installed. On one connection each, one
 * command at a time: GET of a 32-byte value, and SET of one; and the same GET by a bare
 * PHP loop (fwrite, stream_select() on the socket, fread, the value cut out: the least any
 * PHP client that does not block the process does, the floor for Petrel's). The cases take
 * turns (15 rounds) so that other load on the machine hits them alike. Prints operations
 * per second (median round), user+system CPU per operation of this process, and the ratio
 * of each to phpredis's (for time: phpredis's rate / the case's, so 1.00× means as fast,
 * higher slower).
 */

require __DIR__ . '/../../vendor/autoload.php';

use Petrel\Redis\RedisConfig;
use Petrel\Redis\RedisConnection;

use function Petrel\run;

const ROUNDS = 15;
$seconds = max(0.2, (float) ($argv[1] ?? 2));
$config = RedisConfig::fromEnv()->withConnectTimeout(2.0);

/** @return float user+system CPU seconds of this process so far */
function cpu(): float
{
    $usage = getrusage();

    return $usage['ru_utime.tv_sec'] + $usage['ru_utime.tv_usec'] / 1e6 + $usage['ru_stime.tv_sec'] + $usage['ru_stime.tv_usec'] / 1e6;
}

/**
 * @param array<string, Closure(): void> $cases each does 100 operations
 * @return array<string, array{float, float}> median operations per second and CPU µs per operation
 */
function measure(float $seconds, array $cases): array
{
    $results = [];
    foreach ($cases as $label => $batch) {
        for ($i = 0; $i < 20; $i++) {
            $batch(); // warm up
        }
        $results[$label] = [[], []];
    }
    for ($round = 0; $round < ROUNDS; $round++) {
        foreach ($cases as $label => $batch) {
            $operations = 0;
            $cpu = cpu();
            $start = hrtime(true);
            $end = $start + (int) ($seconds / ROUNDS * 1e9);
            do {
                $batch();
                $operations += 100;
                $now = hrtime(true);
            } while ($now < $end);
            $results[$label][0][] = $operations / (($now - $start) / 1e9);
            $results[$label][1][] = (cpu() - $cpu) / $operations * 1e6;
        }
    }
    $medians = [];
    foreach ($results as $label => [$rates, $cpus]) {
        sort($rates);
        sort($cpus);
        $medians[$label] = [$rates[intdiv(ROUNDS, 2)], $cpus[intdiv(ROUNDS, 2)]];
    }

    return $medians;
}

/**
 * A plain non-blocking stream to the server, authenticated and on the right database, for
 * the bare PHP case.
 *
 * @return resource
 */
function bareConnection(RedisConfig $config): mixed
{
    $address = $config->unixSocket !== null ? "unix://{$config->unixSocket}" : "tcp://{$config->host}:{$config->port}";
    $stream = stream_socket_client($address, $errno, $error, 2.0);
    if ($stream === false) {
        throw new RuntimeException("bare connection to {$address}: {$error}");
    }
    $setup = [];
    if ($config->password !== null) {
        $setup[] = $config->username !== null ? ['AUTH', $config->username, $config->password] : ['AUTH', $config->password];
    }
    $setup[] = ['SELECT', (string) $config->database];
    foreach ($setup as $command) {
        $bytes = '*' . count($command) . "\r\n";
        foreach ($command as $part) {
            $bytes .= '$' . strlen($part) . "\r\n{$part}\r\n";
        }
        fwrite($stream, $bytes);
        $reply = (string) fgets($stream);
        if (!str_starts_with($reply, '+')) {
            throw new RuntimeException("bare connection: {$command[0]} answered " . trim($reply));
        }
    }
    stream_set_blocking($stream, false);

    return $stream;
}

if (!extension_loaded('redis')) {
    echo "skipped: phpredis (ext-redis) is not installed, nothing to compare with\n";
    exit(0);
}

run(static function () use ($config, $seconds): void {
    try {
        $petrel = RedisConnection::connect($config);
        $native = new Redis();
        $config->unixSocket !== null ? $native->connect($config->unixSocket) : $native->connect($config->host, $config->port, 2.0);
        if ($config->password !== null) {
            $native->auth($config->username !== null ? [$config->username, $config->password] : $config->password);
        }
        $native->select($config->database);
    } catch (Throwable $e) {
        echo "skipped: no Redis server at {$config->host}:{$config->port} ({$e->getMessage()})\n";

        return;
    }
    $key = 'petrel:bench:get';
    $petrel->set($key, str_repeat('v', 32));
    $bare = bareConnection($config);
    $bareGet = "*2\r\n\$3\r\nGET\r\n\$" . strlen($key) . "\r\n{$key}\r\n";
    printf("Redis at %s:%d; PHP %s, JIT %s; %d rounds of %.2f s per case\n", $config->host, $config->port, PHP_VERSION,
        ini_get('opcache.enable_cli') && ini_get('opcache.jit') && ini_get('opcache.jit') !== 'disable' ? ini_get('opcache.jit') : 'off', ROUNDS, $seconds / ROUNDS);
    $results = measure($seconds, [
        'Petrel GET' => static function () use ($petrel, $key): void {
            for ($i = 0; $i < 100; $i++) {
                $petrel->get($key);
            }
        },
        'phpredis GET' => static function () use ($native, $key): void {
            for ($i = 0; $i < 100; $i++) {
                $native->get($key);
            }
        },
        // The floor of any PHP client that waits without blocking the process: the command's
        // bytes written, a stream_select() on the one socket, the reply read and its value
        // cut out; no parser, no loop, no error handling.
        'bare PHP GET' => static function () use ($bare, $bareGet): void {
            for ($i = 0; $i < 100; $i++) {
                fwrite($bare, $bareGet);
                $reply = '';
                do {
                    $read = [$bare];
                    $none = null;
                    stream_select($read, $none, $none, 2);
                    $reply .= fread($bare, 65536);
                } while (strlen($reply) < 39); // "$32\r\n", 32 bytes, "\r\n"
                $value = substr($reply, strpos($reply, "\r\n") + 2, (int) substr($reply, 1));
            }
        },
        'Petrel SET' => static function () use ($petrel, $key): void {
            for ($i = 0; $i < 100; $i++) {
                $petrel->set($key, 'vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv');
            }
        },
        'phpredis SET' => static function () use ($native, $key): void {
            for ($i = 0; $i < 100; $i++) {
                $native->set($key, 'vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv');
            }
        },
    ]);
    $petrel->del($key);
    foreach ($results as $label => [$rate, $cpu]) {
        $base = $results[str_replace(['Petrel', 'bare PHP'], 'phpredis', $label)];
        printf("%-14s %9.0f ops/s  %5.1f µs CPU/op   time %.2f×, CPU %.2f× phpredis\n", $label, $rate, $cpu, $base[0] / $rate, $cpu / $base[1]);
    }
});
