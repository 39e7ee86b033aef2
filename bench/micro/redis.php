<?php

declare(strict_types=1);

/*
 * Redis client micro-benchmark: php bench/micro/redis.php [rounds]
 *
 * Against the server in $REDIS_URL (default redis://127.0.0.1:6379/0); skipped with a
 * message when none answers. Keys live under "petrel:bench:" and are deleted afterwards.
 *
 * (a) SET then GET round trips on one connection, one command at a time;
 * (b) SETs pipelined 1,000 per round trip on one connection;
 * (c) 100 coroutines, each with its own connection, doing GETs concurrently.
 * Each case runs [rounds] times (default 5); the median round is printed.
 */

require __DIR__ . '/../../vendor/autoload.php';

use Petrel\Redis\RedisConfig;
use Petrel\Redis\RedisConnection;
use Petrel\Redis\RedisPipeline;

use function Petrel\parallel;
use function Petrel\run;

$rounds = max(1, (int) ($argv[1] ?? 5));
$config = RedisConfig::fromEnv()->withConnectTimeout(2.0);

/** @return float median seconds of $rounds runs of $run */
function median(int $rounds, Closure $run): float
{
    $times = [];
    for ($i = 0; $i < $rounds; $i++) {
        $start = hrtime(true);
        $run();
        $times[] = (hrtime(true) - $start) / 1e9;
    }
    sort($times);

    return $times[intdiv(count($times), 2)];
}

function report(string $label, int $count, float $seconds, string $unit): void
{
    printf("%-56s %12s %s/s  (%d in %.1f ms)\n", $label, number_format($count / $seconds), $unit, $count, $seconds * 1e3);
}

run(static function () use ($config, $rounds): void {
    try {
        $redis = RedisConnection::connect($config);
        $redis->ping();
    } catch (Throwable $e) {
        printf("skipped: no Redis server at %s (%s); set REDIS_URL\n", $config->endpoint(), $e->getMessage());

        return;
    }
    $value = str_repeat('v', 32);

    // (a) SET + GET round trips, one at a time.
    $pairs = 10_000;
    $seconds = median($rounds, static function () use ($redis, $pairs, $value): void {
        for ($i = 0; $i < $pairs; $i++) {
            $redis->set('petrel:bench:rt', $value);
            if ($redis->get('petrel:bench:rt') !== $value) {
                throw new RuntimeException('GET returned something else');
            }
        }
    });
    report('(a) SET/GET round trips, one connection', 2 * $pairs, $seconds, 'commands');

    // (b) pipelined SETs.
    $batches = 50;
    $batch = 1_000;
    $seconds = median($rounds, static function () use ($redis, $batches, $batch, $value): void {
        for ($b = 0; $b < $batches; $b++) {
            $results = $redis->pipeline(static function (RedisPipeline $pipe) use ($batch, $value): void {
                for ($i = 0; $i < $batch; $i++) {
                    $pipe->set("petrel:bench:p:{$i}", $value);
                }
            });
            if (count($results) !== $batch) {
                throw new RuntimeException('pipeline lost replies');
            }
        }
    });
    report("(b) pipelined SETs ({$batch} per round trip), one connection", $batches * $batch, $seconds, 'commands');

    // (c) 100 coroutines, one connection each, GETs concurrently.
    $workers = 100;
    $perWorker = 500;
    $connections = parallel(array_fill(0, $workers, static fn (): RedisConnection => RedisConnection::connect($config)));
    $seconds = median($rounds, static function () use ($connections, $perWorker, $value): void {
        $tasks = [];
        foreach ($connections as $connection) {
            $tasks[] = static function () use ($connection, $perWorker, $value): void {
                for ($i = 0; $i < $perWorker; $i++) {
                    if ($connection->get('petrel:bench:rt') !== $value) {
                        throw new RuntimeException('GET returned something else');
                    }
                }
            };
        }
        parallel($tasks);
    });
    report("(c) GETs, {$workers} coroutines with a connection each", $workers * $perWorker, $seconds, 'commands');
    foreach ($connections as $connection) {
        $connection->close();
    }

    $keys = $redis->keys('petrel:bench:*');
    if ($keys !== []) {
        $redis->del(...$keys);
    }
    $redis->close();
});

printf(
    "PHP %s, opcache.enable_cli=%s, JIT=%s, server %s\n",
    PHP_VERSION,
    ini_get('opcache.enable_cli') ?: '0',
    ini_get('opcache.jit') ?: 'off',
    $config->endpoint(),
);
