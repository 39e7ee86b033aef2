<?php

declare(strict_types=1);

/*
 * CPU instructions per Redis GET through RedisConnection, counted by valgrind (callgrind):
 * nearly the same figure on every run, however loaded the machine is.
 *
 *   REDIS_URL=redis://127.0.0.1:6379/0 php -d opcache.enable_cli=1 bench/micro/redis-instructions.php [--case=NAME]
 *
 * Cases (all by default):
 *   get     GET of a 32-byte value on one connection, one command at a time, inside run()
 *           (a coroutine, as in a worker): the client's whole path, write, wait, read, parse
 *   set     SET of a 32-byte value, the same way
 *   main    the GET loop from the main context, outside any coroutine (a script, php-fpm)
 * Each case runs at two loop lengths and the difference is divided by the extra
 * operations, so start-up cancels out. Needs a real server (REDIS_URL, default
 * redis://127.0.0.1:6379/0): a reply is waited for in place (one epoll_wait) whether it is
 * already there or not, so the count does not depend on the server's timing. Syscalls'
 * kernel time is not in the figure: `strace -c -f` on the same command counts those.
 * opcache and JIT settings of this process are passed on; the JIT is off under valgrind
 * unless asked for, as in a worker started without PETREL_JIT.
 */

require __DIR__ . '/../../vendor/autoload.php';
require __DIR__ . '/../lib/callgrind.php';

use Petrel\Redis\RedisConfig;
use Petrel\Redis\RedisConnection;

use function Petrel\run;

const CASES = ['get' => [1000, 3000], 'set' => [1000, 3000], 'main' => [1000, 3000]];

$options = getopt('', ['case:', 'loop:']);
$only = $options['case'] ?? null;
if (\is_string($only) && !isset(CASES[$only])) {
    fwrite(STDERR, "unknown case {$only} (cases: " . implode(', ', array_keys(CASES)) . ")\n");
    exit(2);
}
$cases = \is_string($only) ? [$only => CASES[$only]] : CASES;
$config = RedisConfig::fromEnv()->withConnectTimeout(2.0);
if (!isset($options['loop'])) {
    try {
        RedisConnection::connect($config)->close();
    } catch (Throwable $e) {
        printf("skipped: no Redis server at %s (%s); set REDIS_URL\n", $config->endpoint(), $e->getMessage());
        exit(0);
    }
    printf("redis-instructions — PHP %s, opcache %s, JIT %s, server %s\n", PHP_VERSION,
        ini_get('opcache.enable_cli') ? 'on' : 'off', ini_get('opcache.jit') ?: 'off', $config->endpoint());
    foreach ($cases as $case => [$short, $long]) {
        printf("%-6s %10.0f instructions/op\n", $case, (callgrindInstructions(__FILE__, $case, $long) - callgrindInstructions(__FILE__, $case, $short)) / ($long - $short));
    }
    exit(0);
}
$loop = \is_string($options['loop']) ? (int) $options['loop'] : 0;
$case = array_key_first($cases);
$work = static function () use ($config, $case, $loop): void {
    $redis = RedisConnection::connect($config);
    $key = 'petrel:bench:instructions';
    $value = str_repeat('v', 32);
    $redis->set($key, $value);
    if ($case === 'set') {
        for ($i = 0; $i < $loop; ++$i) {
            $redis->set($key, $value);
        }
    } else {
        for ($i = 0; $i < $loop; ++$i) {
            $redis->get($key);
        }
    }
    if ($redis->get($key) !== $value) {
        throw new RuntimeException('GET returned something else');
    }
    $redis->close();
};
$case === 'main' ? $work() : run($work);
