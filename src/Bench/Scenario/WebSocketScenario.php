<?php

declare(strict_types=1);

namespace Petrel\Bench\Scenario;

use Petrel\Bench\Load\LoadGenerator;
use Petrel\Bench\Load\NodeWebSocket;
use Petrel\Bench\Options;
use Petrel\Bench\Point;
use Petrel\Bench\PointResult;
use Petrel\Bench\Ratio;
use Petrel\Bench\Report\Chart;
use Petrel\Bench\Report\Markdown;
use Petrel\Bench\Rig;
use Petrel\Bench\ScenarioResult;
use Petrel\Bench\Server\Server;
use Petrel\Bench\Stats;

/**
 * Issue #12's measure of Petrel's WebSocket server: echo round trips/s and their latency
 * at 100 and 1,000 connections (examples/ws-echo.php), the workers' memory per open
 * connection, and the time a broadcast takes to reach 1,000 clients (examples/chat, one
 * worker, no Redis). The load comes from bench/ws-load.mjs (node's `ws`) in its own
 * process: an implementation that shares no code with the server, and that costs less CPU
 * per message than PHP would on a machine it shares with the server.
 */
final class WebSocketScenario implements OwnLoad
{
    public const ECHO_CONNECTIONS = [100, 1000];
    public const CLIENTS = 1000;
    private const ECHO_PAGE = 'WebSocket echo';
    private const CHAT_PAGE = 'Petrel chat';
    private const MEMORY = 'memory';
    private const FANOUT = 'fan-out';

    public function name(): string
    {
        return 'websocket';
    }

    public function title(): string
    {
        return 'WebSocket — echo round trips, memory per connection, broadcast fan-out';
    }

    public function description(): string
    {
        return 'Load from `bench/ws-load.mjs` on node\'s `ws` package (compression off), in its own process. '
            . '**Echo**: `examples/ws-echo.php` (coroutine mode, `--workers` workers); each of c connections sends a '
            . '32-byte text message and waits for its echo, again and again: round trips/s and their latency. '
            . '**Memory**: a freshly started ws-echo (a new start per run, no warm-up) holds ' . \number_format(self::CLIENTS)
            . ' idle connections; the server\'s summed RSS (master and workers) at its peak while holding them minus '
            . 'before, per connection (it includes loading the WebSocket code once per worker). **Fan-out**: `examples/chat/app.php` without `REDIS_URL`, '
            . '`--workers=1`, ' . \number_format(self::CLIENTS) . ' members; one sends a message and the time until all '
            . 'of them received it is taken, again and again (the next once the last arrived), so it includes node '
            . 'reading ' . \number_format(self::CLIENTS) . ' frames on the same cores.';
    }

    public function plan(Options $options): array
    {
        $workers = $options->workers;
        $points = [];
        foreach (self::ECHO_CONNECTIONS as $connections) {
            $points[] = new Point('echo', 'echo', self::echoX($connections), '/', $connections, self::ECHO_PAGE,
                ['workers' => $workers, 'mode' => 'echo']);
        }
        $points[] = new Point('echo-fresh', self::MEMORY, self::clientsX('held'), '/', self::CLIENTS, self::ECHO_PAGE,
            ['workers' => $workers, 'mode' => 'hold']);
        $points[] = new Point('chat', self::FANOUT, self::clientsX('clients'), '/', self::CLIENTS, self::CHAT_PAGE,
            ['workers' => 1, 'mode' => 'fanout']);

        return $points;
    }

    public function start(string $server, Rig $rig): Server
    {
        $launcher = $rig->launcher;

        return match ($server) {
            'echo', 'echo-fresh' => $launcher->petrel("ws-{$server}", $rig->app('examples/ws-echo.php'), $rig->options->workers, 'coroutine', self::ECHO_PAGE),
            'chat' => $launcher->petrel('ws-chat', $rig->app('examples/chat/app.php'), 1, 'coroutine', self::CHAT_PAGE, ['REDIS_URL' => null]),
            default => throw new \LogicException("websocket has no server {$server}"),
        };
    }

    public function load(Point $point, Rig $rig): LoadGenerator
    {
        $mode = (string) ($point->params['mode'] ?? 'echo');

        return NodeWebSocket::find($rig->root, $mode, $mode === 'fanout' ? '/chat' : '/');
    }

    public function freshServer(Point $point): bool
    {
        return ($point->params['mode'] ?? '') === 'hold';
    }

    public function summary(ScenarioResult $result): string
    {
        $rows = [];
        foreach (self::ECHO_CONNECTIONS as $connections) {
            $point = $result->find('echo', self::echoX($connections));
            $rows[] = ['Echo, ' . \number_format($connections) . ' connections', self::range($point, 'rps', ' round trips/s'),
                Markdown::metric($point, 'p50_ms'), Markdown::metric($point, 'p99_ms'), ...self::cpu($point)];
        }
        $memory = $result->find(self::MEMORY, self::clientsX('held'));
        $perConnection = self::kbPerConnection($memory);
        $rows[] = ['Memory per open connection (' . \number_format(self::CLIENTS) . ' held)',
            $perConnection === [] ? '—' : self::rangeOf($perConnection, ' KB', static fn (float $v): string => \number_format($v, 1)) . self::rssGrowth($memory), '', '', ...self::cpu($memory)];
        $fanout = $result->find(self::FANOUT, self::clientsX('clients'));
        $rows[] = ['Broadcast fan-out to ' . \number_format(self::CLIENTS) . ' clients', self::range($fanout, 'p50_ms', ' ms')
            . ($fanout !== null && $fanout->measured() ? ' to reach all (median broadcast), slowest ' . Markdown::ms($fanout->median('max_ms'))
                . ' ms, ' . Markdown::rate($fanout->median('deliveries_per_s')) . ' deliveries/s' : ''),
            Markdown::metric($fanout, 'p50_ms'), Markdown::metric($fanout, 'p99_ms'), ...self::cpu($fanout)];

        return Markdown::table(['Measure', 'Result (median, min–max of the runs)', 'p50 ms', 'p99 ms', 'server CPU', 'node CPU'], $rows) . "\n" . Ratios::lines([
            'Echo round trips/s, 1,000 connections / 100' => self::echoRatio($result),
        ]);
    }

    public function chart(ScenarioResult $result): ?Chart
    {
        $points = [];
        foreach (self::ECHO_CONNECTIONS as $connections) {
            $point = $result->find('echo', self::echoX($connections));
            if ($point !== null && $point->measured()) {
                $points[] = [\number_format($connections) . ' connections', $point->median('rps'), $point->min('rps'), $point->max('rps')];
            }
        }
        if ($points === []) {
            return null;
        }
        $title = 'WebSocket echo round trips/s (higher is better)';
        $fanout = $result->find(self::FANOUT, self::clientsX('clients'));
        if ($fanout !== null && $fanout->measured()) {
            $title .= ' — fan-out to ' . \number_format(self::CLIENTS) . ': ' . Markdown::ms($fanout->median('p50_ms')) . ' ms';
        }
        $perConnection = self::kbPerConnection($result->find(self::MEMORY, self::clientsX('held')));
        if ($perConnection !== []) {
            $title .= ', ' . \number_format(Stats::median($perConnection), 1) . ' KB per connection';
        }

        return new Chart($result->name, $title, '', 'round trips per second (median, min–max)', Chart::BARS, ['round trips/s' => $points]);
    }

    /**
     * The workers' RSS growth per held connection, one figure per run, in KB.
     *
     * @return list<float>
     */
    public static function kbPerConnection(?PointResult $point): array
    {
        $figures = [];
        foreach ($point === null ? [] : $point->runs as $run) {
            $held = (float) ($run['held'] ?? 0);
            if ($held > 0 && isset($run['peak_rss_mb'], $run['start_rss_mb'])) {
                $figures[] = ($run['peak_rss_mb'] - $run['start_rss_mb']) * 1024 / $held;
            }
        }

        return $figures;
    }

    /** @return list<string> the server's CPU and the load generator's (100 % = one core) */
    private static function cpu(?PointResult $point): array
    {
        if ($point === null || !$point->measured()) {
            return ['—', '—'];
        }

        return [Markdown::metric($point, 'cpu_percent'), \number_format($point->median('load_cpu_percent')) . ' %'];
    }

    private static function echoRatio(ScenarioResult $result): ?Ratio
    {
        $many = $result->rps('echo', self::echoX(self::ECHO_CONNECTIONS[1]));
        $few = $result->rps('echo', self::echoX(self::ECHO_CONNECTIONS[0]));
        $ratio = $many === null || $few === null ? null : Stats::ratio($many, $few);

        return $ratio === null ? null : Ratio::single($ratio);
    }

    private static function range(?PointResult $point, string $metric, string $unit): string
    {
        if ($point === null || !$point->measured()) {
            return '—';
        }

        return self::rangeOf(\array_map('floatval', \array_column($point->runs, $metric)), $unit,
            $metric === 'rps' ? Markdown::rate(...) : Markdown::ms(...));
    }

    /**
     * "median unit (min–max)"; the range only with several values.
     *
     * @param list<float> $values
     * @param \Closure(float): string $format
     */
    private static function rangeOf(array $values, string $unit, \Closure $format): string
    {
        $text = $format(Stats::median($values)) . $unit;

        return \count($values) < 2 ? $text : $text . ' (' . $format((float) \min($values)) . '–' . $format((float) \max($values)) . ')';
    }

    private static function rssGrowth(?PointResult $point): string
    {
        return $point === null ? '' : \sprintf(', server RSS %s → %s MB', \number_format($point->median('start_rss_mb'), 1), \number_format($point->median('peak_rss_mb'), 1));
    }

    private static function echoX(int $connections): string
    {
        return "c={$connections}";
    }

    private static function clientsX(string $what): string
    {
        return \number_format(self::CLIENTS) . " {$what}";
    }
}
