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
 * Issue #16's seed experiment with a real framework: one Symfony app (examples/symfony)
 * booted per request by nginx + php-fpm, resident on Petrel in sync mode (app.php: a
 * kernel prefers sync) and in coroutine mode (app-coroutine.php: KernelHandler with
 * concurrent: true), on a JSON route and a Twig page.
 */
final class SymfonyScenario implements Scenario
{
    public const CONNECTIONS = 100;
    /** Shown as x => [path, a piece of the body]. */
    public const ROUTES = [
        'JSON /api/hello' => ['/api/hello', '{"message":"Hello, World!"}'],
        'Twig /' => ['/', 'Hello, Symfony on Petrel!'],
    ];
    private const SERIES = [
        'fpm' => 'nginx + php-fpm',
        'sync' => 'Petrel sync',
        'coroutine' => 'Petrel coroutine',
    ];

    public function name(): string
    {
        return 'symfony';
    }

    public function title(): string
    {
        return 'Symfony — nginx + php-fpm vs Petrel sync vs Petrel coroutine';
    }

    public function description(): string
    {
        return 'The Symfony 6 app of `examples/symfony` (FrameworkBundle and TwigBundle, `APP_ENV=prod`), one warm cache '
            . 'shared by all three: classic through `public/index.php` on nginx + php-fpm (`pm = static`, four children per '
            . 'worker, opcache on, JIT off), which boots the kernel per request; resident on Petrel with `app.php` in sync '
            . 'mode (what `bin/petrel start` picks for a kernel) and with `app-coroutine.php` '
            . '(`KernelHandler(…, concurrent: true)`) in coroutine mode, `--workers` workers each. '
            . '`GET /api/hello` answers JSON from a service; `GET /` renders a Twig layout. c=' . self::CONNECTIONS . '.';
    }

    public function plan(Options $options): array
    {
        $points = [];
        foreach (self::SERIES as $server => $series) {
            foreach (self::ROUTES as $x => [$path, $expect]) {
                $points[] = new Point($server, $series, $x, $path, self::CONNECTIONS, $expect, ['workers' => $options->workers]);
            }
        }

        return $points;
    }

    public function start(string $server, Rig $rig): Server
    {
        $workers = $rig->options->workers;
        $expect = self::ROUTES['Twig /'][1];
        $env = ['APP_ENV' => 'prod', 'APP_DEBUG' => '0', 'APP_VAR_DIR' => $rig->workspace->path('symfony/var')];
        $launcher = $rig->launcher;

        return match ($server) {
            'fpm' => $launcher->nginxFpm('symfony-fpm', $workers, 4 * $workers, $rig->app('examples/symfony/public/index.php'), $expect, $env),
            'sync' => $launcher->petrel('symfony-sync', $rig->app('examples/symfony/app.php'), $workers, 'sync', $expect, $env),
            'coroutine' => $launcher->petrel('symfony-coroutine', $rig->app('examples/symfony/app-coroutine.php'), $workers, 'coroutine', $expect, $env),
            default => throw new \LogicException("symfony has no server {$server}"),
        };
    }

    public function summary(ScenarioResult $result): string
    {
        $fpm = self::SERIES['fpm'];
        $sync = self::SERIES['sync'];
        $coroutine = self::SERIES['coroutine'];
        $rows = [];
        foreach (\array_keys(self::ROUTES) as $x) {
            $row = [$x];
            foreach (self::SERIES as $series) {
                $row[] = ($point = $result->find($series, $x)) === null ? '—' : Markdown::rateRange($point);
            }
            \array_push($row,
                Markdown::ratio($result->ratio($sync, $fpm, $x)),
                Markdown::ratio($result->ratio($coroutine, $fpm, $x)),
                Markdown::ratio($result->ratio($coroutine, $sync, $x)),
                \implode(' / ', \array_map(static fn (string $s): string => Markdown::metric($result->find($s, $x), 'p99_ms'), self::SERIES)));
            $rows[] = $row;
        }
        $header = ['Route', ...\array_map(static fn (string $s): string => "{$s} req/s", \array_values(self::SERIES)),
            'sync / php-fpm', 'coroutine / php-fpm', 'coroutine / sync', 'p99 ms (php-fpm / sync / coroutine)'];

        return Markdown::table($header, $rows);
    }

    public function chart(ScenarioResult $result): ?Chart
    {
        return Charts::series($result, 'The same Symfony app, c=' . self::CONNECTIONS . ' (higher is better)', 'route', Chart::BARS);
    }
}
