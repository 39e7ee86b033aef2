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
 * The framework example: the blog's `/` served by Petrel directly, behind an nginx
 * reverse proxy (seed 001), and in classic mode on nginx + php-fpm (seed 004); with
 * examples/hello.php on Petrel taking turns beside them, so that the blog's rate is also
 * told as a fraction of the hello world's measured in the same rounds (the per-request
 * cost issue's "blog ≥ 0.4× hello, same run").
 */
final class BlogScenario implements TakesTurns
{
    public const CONNECTIONS = 100;
    private const EXPECT = 'Hello, Ada Lovelace!';
    private const SERIES = [
        'direct' => 'Petrel direct',
        'proxy' => 'nginx → Petrel (reverse proxy)',
        'classic' => 'nginx + php-fpm (classic)',
        'hello' => 'Petrel hello (for scale)',
    ];
    private const HELLO = 'Hello, World!';

    public function name(): string
    {
        return 'blog';
    }

    public function title(): string
    {
        return 'The blog example — direct, behind nginx, and classic php-fpm';
    }

    public function description(): string
    {
        return '`examples/blog` `GET /`: two middlewares, `User::find(1)` on SQLite and a Twig layout. Served by '
            . 'Petrel (coroutine mode, `--workers` workers) directly; by the same Petrel behind nginx as a reverse proxy '
            . '(keep-alive upstream); and in classic mode through `examples/blog/public/index.php` on nginx + php-fpm '
            . '(`pm = static`, four children per worker, opcache on, the JIT off as in Petrel), which boots the framework per request. c='
            . self::CONNECTIONS . '. `examples/hello.php` on Petrel (coroutine mode, same workers) runs beside them, for scale: the '
            . 'blog\'s rate as a fraction of a hello world\'s. All four run side by side and take turns: the first run of each, '
            . 'then the second of each, and so on.';
    }

    public function plan(Options $options): array
    {
        $points = [];
        foreach (self::SERIES as $server => $series) {
            $expect = $server === 'hello' ? self::HELLO : self::EXPECT;
            $points[] = new Point($server, $series, '', '/', self::CONNECTIONS, $expect, ['workers' => $options->workers]);
        }

        return $points;
    }

    public function start(string $server, Rig $rig): Server
    {
        $workers = $rig->options->workers;
        // One SQLite file for every setup (seeded by the first boot); no Redis: `/` never
        // touches a session, and the default setup is what is measured.
        $env = [
            'DATABASE_URL' => 'sqlite://' . $rig->workspace->path('blog/blog.sqlite'),
            'BLOG_VAR_DIR' => $rig->workspace->path('blog/var'),
            'REDIS_URL' => null,
            'BLOG_DEBUG' => null,
        ];
        $app = $rig->app('examples/blog/app.php');
        $launcher = $rig->launcher;

        return match ($server) {
            'direct' => $launcher->petrel('blog-direct', $app, $workers, 'coroutine', self::EXPECT, $env),
            'proxy' => $launcher->nginxProxy('blog-proxy', $workers, $launcher->petrel('blog-upstream', $app, $workers, 'coroutine', self::EXPECT, $env), self::EXPECT),
            'classic' => $launcher->nginxFpm('blog-classic', $workers, 4 * $workers, $rig->app('examples/blog/public/index.php'), self::EXPECT, $env),
            'hello' => $launcher->petrel('blog-hello', $rig->app('examples/hello.php'), $workers, 'coroutine', self::HELLO),
            default => throw new \LogicException("blog has no server {$server}"),
        };
    }

    public function summary(ScenarioResult $result): string
    {
        $rows = [];
        foreach (self::SERIES as $series) {
            $point = $result->find($series);
            if ($point !== null) {
                $rows[] = [$series, Markdown::rateRange($point), Markdown::metric($point, 'p50_ms'), Markdown::metric($point, 'p99_ms')];
            }
        }
        $direct = self::SERIES['direct'];
        $ratios = [
            'Petrel direct / behind nginx' => $result->compare($direct, self::SERIES['proxy']),
            'Petrel direct / classic php-fpm' => $result->compare($direct, self::SERIES['classic']),
        ];
        if ($result->find(self::SERIES['hello']) !== null) { // results of runs before it was added have none
            $ratios['Petrel direct / Petrel hello'] = $result->compare($direct, self::SERIES['hello']);
        }

        return Markdown::table(['Setup', 'req/s (min–max)', 'p50 ms', 'p99 ms'], $rows) . "\n" . Ratios::lines($ratios);
    }

    public function chart(ScenarioResult $result): ?Chart
    {
        return Charts::bars($result, 'The blog\'s / page, c=' . self::CONNECTIONS . ' (higher is better)');
    }
}
