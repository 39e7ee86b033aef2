<?php

declare(strict_types=1);

namespace Petrel\Bench\Scenario;

use Petrel\Bench\Options;
use Petrel\Bench\Point;
use Petrel\Bench\Report\Chart;
use Petrel\Bench\Report\Charts;
use Petrel\Bench\Report\Markdown;
use Petrel\Bench\Rig;
use Petrel\Bench\ScenarioResult;
use Petrel\Bench\Server\Server;

/**
 * The seeds' hello world: examples/hello.php on Petrel (coroutine and sync) against
 * nginx answering `return 200` itself (the machine's ceiling for an HTTP server), a bare
 * PHP loop answering the same bytes (the floor of any PHP server: what is left of the gap
 * to nginx once PHP's own cost is taken out is Petrel's) and the same hello in classic
 * mode, booted per request by nginx + php-fpm.
 */
final class HelloScenario implements TakesTurns
{
    public const CONNECTIONS = 100;
    private const BODY = 'Hello, World!';
    private const SERIES = [
        'petrel-coroutine' => 'Petrel coroutine',
        'petrel-sync' => 'Petrel sync',
        'nginx' => 'nginx return 200',
        'bare' => 'bare PHP loop (floor)',
        'fpm' => 'nginx + php-fpm (classic)',
    ];

    public function name(): string
    {
        return 'hello';
    }

    public function title(): string
    {
        return 'Hello world — Petrel vs nginx `return 200`, a bare PHP loop and nginx + php-fpm';
    }

    public function description(): string
    {
        return '`examples/hello.php` (`200 text/plain`, `Hello, World!`) on Petrel in coroutine and sync mode, '
            . 'nginx answering `return 200` itself (no PHP: the ceiling of an HTTP server on this machine), '
            . '`bench/apps/bare-hello.php` (a `stream_select()` loop that answers fixed bytes to whatever ends in a blank '
            . 'line: no parser, no objects, the floor of any server written in PHP), and the '
            . 'same hello in classic mode (`bench/apps/hello-classic.php`) on nginx + php-fpm (`pm = static`, '
            . 'opcache on, the JIT off as in Petrel), which boots the app per request. '
            . 'Petrel, nginx and the bare loop run as many workers as `--workers`, php-fpm four children per worker; keep-alive, c='
            . self::CONNECTIONS . '. All run side by side and take turns: the first run of each, then the second of each, and so on.';
    }

    public function plan(Options $options): array
    {
        $points = [];
        foreach (self::SERIES as $server => $series) {
            $points[] = new Point($server, $series, '', '/', self::CONNECTIONS, self::BODY, ['workers' => $options->workers]);
        }

        return $points;
    }

    public function start(string $server, Rig $rig): Server
    {
        $workers = $rig->options->workers;
        $launcher = $rig->launcher;

        return match ($server) {
            'petrel-coroutine' => $launcher->petrel($server, $rig->app('examples/hello.php'), $workers, 'coroutine', self::BODY),
            'petrel-sync' => $launcher->petrel($server, $rig->app('examples/hello.php'), $workers, 'sync', self::BODY),
            'nginx' => $launcher->nginxReturn200($server, $workers),
            'bare' => $launcher->barePhp($server, $workers),
            'fpm' => $launcher->nginxFpm($server, $workers, 4 * $workers, $rig->app('bench/apps/hello-classic.php'), self::BODY),
            default => throw new \LogicException("hello has no server {$server}"),
        };
    }

    public function summary(ScenarioResult $result): string
    {
        $nginx = self::SERIES['nginx'];
        $coroutine = self::SERIES['petrel-coroutine'];
        $rows = [];
        foreach (self::SERIES as $series) {
            $point = $result->find($series);
            if ($point === null) {
                continue;
            }
            $rows[] = [$series, Markdown::rateRange($point), Markdown::metric($point, 'p99_ms'), Markdown::ratio($result->ratio($series, $nginx))];
        }
        $ratios = [
            'Petrel coroutine / nginx `return 200`' => $result->compare($coroutine, $nginx),
            'Petrel coroutine / bare PHP loop' => $result->compare($coroutine, self::SERIES['bare']),
            'Petrel coroutine / nginx + php-fpm' => $result->compare($coroutine, self::SERIES['fpm']),
            'Petrel coroutine / Petrel sync' => $result->compare($coroutine, self::SERIES['petrel-sync']),
        ];

        return Markdown::table(['Server', 'req/s (min–max)', 'p99 ms', 'vs nginx'], $rows) . "\n" . Ratios::lines($ratios);
    }

    public function chart(ScenarioResult $result): ?Chart
    {
        return Charts::bars($result, 'Hello world, c=' . self::CONNECTIONS . ' (higher is better)');
    }
}
