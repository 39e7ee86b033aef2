<?php

declare(strict_types=1);

namespace Petrel\Bench;

use Petrel\Bench\Internal\ProcessSampler;
use Petrel\Bench\Internal\Progress;
use Petrel\Bench\Load\LoadException;
use Petrel\Bench\Load\LoadGenerator;
use Petrel\Bench\Scenario\Scenario;
use Petrel\Bench\Server\Server;

/**
 * Runs scenarios point by point: starts each server once for its consecutive points,
 * checks that it serves the expected page, warms it up, then measures `--repeat` runs
 * while sampling the server's processes. A point that cannot run (missing tool, server
 * that will not start, wrong page) is recorded with the reason; the others still run.
 */
final class Runner
{
    private const SAMPLE_EVERY_US = 200_000;

    /** Load-generator runs so far, to name their raw output files. */
    private int $runs = 0;

    public function __construct(
        private readonly Rig $rig,
        private readonly LoadGenerator $load,
        private readonly Progress $progress,
        private readonly string $rawDir,
        private readonly int $ticksPerSecond = 100,
        private readonly int $pageSize = 4096,
    ) {
    }

    /** @param list<Point> $points the scenario's plan */
    public function run(Scenario $scenario, array $points): ScenarioResult
    {
        $results = [];
        $notes = [];
        foreach (self::groups($points) as [$serverName, $group]) {
            try {
                $server = $scenario->start($serverName, $this->rig);
            } catch (SkipException | BenchException $error) {
                $skip = $error instanceof SkipException;
                $message = ($skip ? PointResult::SKIPPED : 'failed to start: ') . $error->getMessage();
                $this->progress->say("{$scenario->name()} · {$group[0]->series}: {$message}");
                $notes[] = "{$group[0]->series} — {$message}";
                foreach ($group as $point) {
                    $results[] = new PointResult($point, [], $message);
                    $this->progress->advance();
                }
                continue;
            }
            try {
                foreach ($group as $point) {
                    $results[] = $this->measurePoint($scenario, $server, $point);
                    $this->progress->advance();
                }
            } finally {
                $server->stop();
            }
        }

        return new ScenarioResult($scenario->name(), $results, \array_values(\array_unique($notes)));
    }

    private function measurePoint(Scenario $scenario, Server $server, Point $point): PointResult
    {
        $options = $this->rig->options;
        $url = $server->url . $point->path;
        [$status, $body] = Workspace::get($url);
        if ($status !== 200 || !\str_contains($body, $point->expect)) {
            $message = "{$url} answered HTTP {$status} without \"{$point->expect}\": " . \substr(\trim($body), 0, 160);
            $this->progress->say("{$scenario->name()} · {$point->describe()}: {$message}");

            return new PointResult($point, [], $message);
        }
        $runs = [];
        try {
            if ($options->warmup > 0) {
                $this->progress->point($scenario->name(), $point->describe() . ' (warm-up)', 1, $options->repeat);
                $this->loadRun($url, $point->connections, $options->warmup, null, "{$scenario->name()}-warmup");
            }
            for ($run = 1; $run <= $options->repeat; ++$run) {
                $this->progress->point($scenario->name(), $point->describe(), $run, $options->repeat);
                $runs[] = $this->loadRun($url, $point->connections, $options->duration, $server, $scenario->name())->toArray();
            }
        } catch (LoadException $error) {
            $this->progress->say("{$scenario->name()} · {$point->describe()}: {$error->getMessage()}");

            return new PointResult($point, $runs, $error->getMessage());
        }

        return new PointResult($point, $runs);
    }

    /** One run of the load generator; with a server, its processes are sampled meanwhile. */
    private function loadRun(string $url, int $connections, int $seconds, ?Server $server, string $label): Measurement
    {
        $log = \sprintf('%s/%03d-%s.txt', $this->rawDir, ++$this->runs, $label);
        $sampler = new ProcessSampler($server?->pids() ?? [], ticksPerSecond: $this->ticksPerSecond, pageSize: $this->pageSize);
        $sampler->start();
        $process = $this->rig->workspace->spawn($this->load->name(), $this->load->command($url, $connections, $seconds, $this->rig->options->timeout), null, null, $log);
        do {
            \usleep(self::SAMPLE_EVERY_US);
            $sampler->sample();
        } while ($process->isRunning());
        $process->wait();
        $output = $process->output();
        if ($server === null) {
            @\unlink($log); // warm-ups are not results
        }

        return new Measurement($this->load->parse($output), $sampler->cpuPercent(), $sampler->peakRssBytes());
    }

    /**
     * Consecutive points on the same server, in plan order.
     *
     * @param list<Point> $points
     * @return list<array{string, non-empty-list<Point>}>
     */
    private static function groups(array $points): array
    {
        $groups = [];
        $server = null;
        $group = [];
        foreach ($points as $point) {
            if ($group !== [] && $point->server !== $server) {
                $groups[] = [(string) $server, $group];
                $group = [];
            }
            $server = $point->server;
            $group[] = $point;
        }
        if ($group !== []) {
            $groups[] = [(string) $server, $group];
        }

        return $groups;
    }
}
