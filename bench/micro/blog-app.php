<?php

declare(strict_types=1);

/*
 * Worker-side cost of the blog's `GET /` (two middlewares, User::find(1) on SQLite, a Twig
 * layout), in µs per request, without sockets or HTTP parsing: the blog app is booted on a
 * fresh SQLite file and its handler called N times, each call in a coroutine of its own as
 * Server::dispatch() does (so pooled leases, defers and Context end with each request).
 * examples/hello.php's handler is measured the same way, for scale.
 *
 *   php bench/micro/blog-app.php [--requests=20000] [--rounds=5] [--profile[=N]]
 *   php -d opcache.enable_cli=1 -d zend.enable_gc=0 bench/micro/blog-app.php --instructions
 *   php -d opcache.enable_cli=1 -d opcache.jit=tracing -d opcache.jit_buffer_size=64M \
 *       bench/micro/blog-app.php                # as bin/petrel start runs workers
 *
 * Prints the best and the median round, in CPU time (getrusage: user + system) per request. --profile samples one more round with ext-excimer
 * and prints the N (default 25) functions with the most samples, exclusive and inclusive
 * (without installing it: `apt-get download php-excimer && dpkg -x php-excimer_*.deb /tmp/x`,
 * then `php -d extension=/tmp/x/usr/lib/php/20220829/excimer.so …`).
 * --instructions counts instead, under valgrind's callgrind, the instructions of one blog
 * request and one hello request (two loop lengths, the difference divided: boot cancels out):
 * the same figure on every run, to compare versions of the framework path with. Turn the GC
 * off (-d zend.enable_gc=0) when comparing: a GC run falling in one window moves it by ~1,000.
 */

use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;

use function Petrel\go;
use function Petrel\run;

require __DIR__ . '/../../vendor/autoload.php';
require __DIR__ . '/../lib/callgrind.php';

$options = getopt('', ['requests:', 'rounds:', 'profile::', 'instructions', 'case:', 'loop:']);
if (isset($options['instructions'])) {
    printf("bench/micro/blog-app — PHP %s, instructions per request (callgrind)\n", PHP_VERSION);
    foreach (['blog', 'hello'] as $case) {
        printf("  %-12s %8.0f\n", $case === 'blog' ? 'blog GET /' : $case, (callgrindInstructions(__FILE__, $case, 2200) - callgrindInstructions(__FILE__, $case, 200)) / 2000);
    }
    exit(0);
}
$requests = max(1, (int) ($options['requests'] ?? 20000));
$rounds = max(1, (int) ($options['rounds'] ?? 5));
$profileTop = isset($options['profile']) ? max(1, (int) ($options['profile'] ?: 25)) : 0;

$dir = sys_get_temp_dir() . '/petrel-blog-micro-' . getmypid();
putenv("DATABASE_URL=sqlite://{$dir}/blog.sqlite");
putenv("BLOG_VAR_DIR={$dir}/var");
putenv('REDIS_URL');
register_shutdown_function(static fn () => exec('rm -rf ' . escapeshellarg($dir)));

/** What wrk sends. */
function homeRequest(): Request
{
    return new Request('GET', '/', '1.1', ['host' => ['127.0.0.1:8080']]);
}

/**
 * CPU µs per request over $n requests, each handled in a coroutine of its own.
 *
 * @param Closure(Request): Response $handle
 */
function measure(Closure $handle, int $n): float
{
    $request = homeRequest();
    $start = cpuMicroseconds();
    for ($i = 0; $i < $n; ++$i) {
        go($handle, $request)->join();
    }

    return (cpuMicroseconds() - $start) / $n;
}

/** CPU time used by this process (user + system): on a shared machine, steadier than wall time. */
function cpuMicroseconds(): float
{
    $usage = getrusage();

    return $usage['ru_utime.tv_sec'] * 1e6 + $usage['ru_utime.tv_usec'] + $usage['ru_stime.tv_sec'] * 1e6 + $usage['ru_stime.tv_usec'];
}

/**
 * @param Closure(Request): Response $handle
 * @return array{float, float} best and median µs per request
 */
function rounds(Closure $handle, int $n, int $rounds): array
{
    measure($handle, min($n, 2000)); // warm-up: templates compiled, JIT traces recorded
    $times = [];
    for ($r = 0; $r < $rounds; ++$r) {
        $times[] = measure($handle, $n);
    }
    sort($times);

    return [$times[0], $times[intdiv(count($times), 2)]];
}

function profile(Closure $handle, int $n, int $top): void
{
    if (!class_exists(ExcimerProfiler::class)) {
        fwrite(STDERR, "--profile needs ext-excimer\n");

        return;
    }
    $profiler = new ExcimerProfiler();
    $profiler->setPeriod(0.0001);
    $profiler->setEventType(EXCIMER_CPU);
    $profiler->start();
    measure($handle, $n);
    $profiler->stop();
    $self = $inclusive = [];
    $total = 0;
    foreach ($profiler->getLog() as $entry) {
        $frames = $entry->getTrace();
        $weight = $entry->getEventCount();
        $total += $weight;
        $seen = [];
        foreach ($frames as $depth => $frame) {
            $name = isset($frame['class']) ? "{$frame['class']}::{$frame['function']}" : ($frame['function'] ?? ($frame['file'] ?? '?'));
            if ($depth === 0) {
                $self[$name] = ($self[$name] ?? 0) + $weight;
            }
            if (!isset($seen[$name])) {
                $seen[$name] = true;
                $inclusive[$name] = ($inclusive[$name] ?? 0) + $weight;
            }
        }
    }
    arsort($self);
    arsort($inclusive);
    printf("\nprofile: %d samples\n  %-6s %s\n", $total, 'self', 'function');
    foreach (array_slice($self, 0, $top, true) as $name => $count) {
        printf("  %5.1f%% %s\n", 100 * $count / max(1, $total), $name);
    }
    printf("  %-6s %s\n", 'incl', 'function');
    foreach (array_slice($inclusive, 0, $top, true) as $name => $count) {
        printf("  %5.1f%% %s\n", 100 * $count / max(1, $total), $name);
    }
}

run(static function () use ($requests, $rounds, $profileTop, $options): void {
    /** @var RequestHandler $blog */
    $blog = require __DIR__ . '/../../examples/blog/app.php';
    $hello = require __DIR__ . '/../../examples/hello.php';
    $blogHandle = static fn (Request $request): Response => $blog->handle($request);

    $page = $blogHandle(homeRequest());
    if ($page->getStatus() !== 200 || !str_contains((string) $page->getBody(), 'Hello, Ada Lovelace!')) {
        throw new RuntimeException("GET / does not serve the blog's home page:\n" . (is_string($page->getBody()) ? $page->getBody() : ''));
    }

    if (isset($options['loop'])) { // one plain run, for --instructions
        measure(($options['case'] ?? 'blog') === 'hello' ? $hello : $blogHandle, max(1, (int) $options['loop']));

        return;
    }

    $jit = (bool) (ini_get('opcache.enable_cli') && function_exists('opcache_get_status') && (opcache_get_status(false)['jit']['on'] ?? false));
    printf("bench/micro/blog-app — PHP %s, JIT %s, %d requests x %d rounds (best / median µs per request)\n", PHP_VERSION, $jit ? 'on' : 'off', $requests, $rounds);
    foreach (['blog GET /' => $blogHandle, 'hello' => $hello] as $label => $handle) {
        [$best, $median] = rounds($handle, $requests, $rounds);
        printf("  %-12s %7.2f / %7.2f µs\n", $label, $best, $median);
    }
    if ($profileTop > 0) {
        profile($blogHandle, $requests, $profileTop);
    }
});
