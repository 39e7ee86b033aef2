<?php

// A tour of the runtime: php examples/coroutines.php
declare(strict_types=1);

require __DIR__ . '/../vendor/autoload.php';

use Petrel\Coroutine\Channel;
use Petrel\Coroutine\TimeoutException;

use function Petrel\defer;
use function Petrel\go;
use function Petrel\parallel;
use function Petrel\run;
use function Petrel\sleep;
use function Petrel\timeout;

run(function (): void {
    $start = \hrtime(true);
    $results = new Channel(10);
    foreach (['a' => 0.03, 'b' => 0.01] as $name => $seconds) {
        go(function () use ($name, $seconds, $results): void {
            defer(static fn () => print("{$name} done\n"));
            sleep($seconds);
            $results->push($name);
        });
    }
    $first = $results->pop();
    $second = $results->pop();
    echo "first to finish: {$first}, then: {$second}\n";

    try {
        timeout(0.05, static fn () => sleep(10));
    } catch (TimeoutException $e) {
        echo $e->getMessage(), "\n";
    }

    $sum = \array_sum(parallel(\array_fill(0, 1000, static function (): int {
        sleep(0.1);

        return 1;
    })));
    \printf("1000 coroutines slept 100 ms each: sum %d in %.0f ms total\n", $sum, (\hrtime(true) - $start) / 1e6);
});
