<?php

/**
 * Runtime micro-benchmarks: php bench/micro/run.php [--repeat=5]
 *
 * Prints the median (and min–max) of each figure over the repeats. Targets from the
 * runtime issue: spawn+complete >= 1,000,000/s; 10,000 sleeping coroutines <= 160 MB RSS.
 */

declare(strict_types=1);

require __DIR__ . '/../../vendor/autoload.php';

use Petrel\Coroutine\Channel;
use Petrel\Coroutine\Scheduler;

use function Petrel\go;
use function Petrel\run;
use function Petrel\sleep;

$repeat = 5;
foreach ($argv as $arg) {
    if (\preg_match('/^--repeat=(\d+)$/', $arg, $m)) {
        $repeat = \max(1, (int) $m[1]);
    }
}

function rssBytes(): int
{
    $status = (string) \file_get_contents('/proc/self/status');

    return \preg_match('/^VmRSS:\s+(\d+) kB/m', $status, $m) ? (int) $m[1] * 1024 : 0;
}

$benchmarks = [
    'spawn+complete /s' => static function (): float {
        $n = 300000;
        $noop = static function (): void {
        };

        return run(static function () use ($n, $noop): float {
            $start = \hrtime(true);
            for ($i = 0; $i < $n; $i++) {
                go($noop);
            }

            return $n / ((\hrtime(true) - $start) / 1e9);
        });
    },
    'channel push/pop pairs /s' => static function (): float {
        $n = 300000;

        return run(static function () use ($n): float {
            $channel = new Channel(128);
            $start = \hrtime(true);
            $consumer = go(static function () use ($channel, $n): void {
                for ($i = 0; $i < $n; $i++) {
                    $channel->pop();
                }
            });
            for ($i = 0; $i < $n; $i++) {
                $channel->push($i);
            }
            $consumer->join();

            return $n / ((\hrtime(true) - $start) / 1e9);
        });
    },
    'context switches /s' => static function (): float {
        $n = 300000;
        $scheduler = Scheduler::get();
        $suspension = null;
        $coroutine = go(static function () use (&$suspension, $scheduler): void {
            while (true) {
                $suspension = $scheduler->suspension();
                if ($suspension->suspend() === 'stop') {
                    return;
                }
            }
        });
        $start = \hrtime(true);
        for ($i = 0; $i < $n; $i++) {
            $suspension->resume(1); // from the main context: switch in, and out at the next suspend
        }
        $elapsed = (\hrtime(true) - $start) / 1e9;
        $suspension->resume('stop');
        $coroutine->join();

        return 2 * $n / $elapsed;
    },
    'RSS of 10,000 sleeping coroutines (MB)' => static function (): float {
        Scheduler::reset();
        \gc_collect_cycles();
        $before = rssBytes();
        $peak = 0;
        run(static function () use (&$peak): void {
            $all = [];
            for ($i = 0; $i < 10000; $i++) {
                $all[] = go(static fn () => sleep(0.5));
            }
            $peak = rssBytes();
            foreach ($all as $coroutine) {
                $coroutine->join();
            }
        });
        Scheduler::reset();

        return ($peak - $before) / 1048576;
    },
];

\printf("Petrel runtime micro-benchmarks — PHP %s, %d repeat(s), opcache.enable_cli=%s, JIT=%s\n", \PHP_VERSION, $repeat, \ini_get('opcache.enable_cli') ?: '0', \ini_get('opcache.jit') ?: 'off');
foreach ($benchmarks as $name => $benchmark) {
    $samples = [];
    for ($i = 0; $i < $repeat; $i++) {
        Scheduler::reset();
        $samples[] = $benchmark();
    }
    \sort($samples);
    $median = $samples[\intdiv(\count($samples), 2)];
    $format = \str_contains($name, 'MB') ? '%.1f' : '%s';
    $show = static fn (float $v): string => \str_contains($name, 'MB') ? \sprintf('%.1f', $v) : \number_format($v, 0, '.', ',');
    \printf("%-40s %14s   (min %s, max %s)\n", $name, $show($median), $show($samples[0]), $show($samples[\count($samples) - 1]));
}
