<?php

declare(strict_types=1);

namespace Petrel\Bench;

use Petrel\Bench\Internal\ProcessSampler;
use Petrel\Bench\Internal\Progress;
use Petrel\Bench\Load\LoadException;
use Petrel\Bench\Load\LoadGenerator;
use Petrel\Bench\Scenario\OwnLoad;
use Petrel\Bench\Scenario\Scenario;
use Petrel\Bench\Scenario\TakesTurns;
use Petrel\Bench\Server\Server;

/**
 * Runs scenarios point by point: starts each server once for its consecutive points,
 * checks that it serves the expected page, warms it up, then measures `--repeat` runs
 * while sampling the server's processes. A point that cannot run (missing tool, server
 * that will not start, wrong page) is recorded with the reason; the others still run.
 * A scenario with its own load generator (OwnLoad) names it per point, and may ask for a
 * fresh server before every run of a point. A scenario that TakesTurns has all its
 * servers started first and its points measured in rounds, one run of each per round.
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
        if ($scenario instanceof TakesTurns && !$scenario instanceof OwnLoad) {
            return $this->runInTurns($scenario, $points);
        }
        $results = [];
        $notes = [];
        foreach (self::groups($points) as [$serverName, $group]) {
            $started = $this->start($scenario, $serverName, $group, $results, $notes);
            if ($started === null) {
                continue;
            }
            [$server, $loads] = $started;
            // A point that needs a fresh server per run restarts it: $server is always the live one.
            $rig = $this->rig;
            $restart = static function () use (&$server, $scenario, $serverName, $rig): Server {
                $server->stop();

                return $server = $scenario->start($serverName, $rig);
            };
            try {
                foreach ($group as $i => $point) {
                    $results[] = $this->measurePoint($scenario, $server, $point, $loads[$i], $restart);
                    $this->progress->advance();
                }
            } finally {
                $server->stop();
                $this->noteTrouble($scenario, $group[0]->series, $server, $notes);
            }
        }

        return new ScenarioResult($scenario->name(), $results, \array_values(\array_unique($notes)));
    }

    /**
     * Every server of the scenario started, each point's page checked and warmed up, then
     * `--repeat` rounds of one run per point, in plan order. A point whose run fails is
     * recorded with the runs it had and leaves the rounds; results keep the plan's order.
     *
     * @param list<Point> $points
     */
    private function runInTurns(Scenario $scenario, array $points): ScenarioResult
    {
        $options = $this->rig->options;
        $results = [];
        $notes = [];
        /** @var array<int, array{Point, Server, LoadGenerator}> $live by plan index */
        $live = [];
        /** @var array<int, list<array<string, float|int>>> $runs by plan index */
        $runs = [];
        $servers = [];
        $index = 0;
        $this->progress->turnsBegin();
        try {
            foreach (self::groups($points) as [$serverName, $group]) {
                $skipped = [];
                $started = $this->start($scenario, $serverName, $group, $skipped, $notes);
                foreach ($group as $i => $point) {
                    $number = $index++;
                    if ($started === null) {
                        $results[$number] = $skipped[$i];
                        continue;
                    }
                    $error = $this->pageError($scenario, $started[0], $point);
                    if ($error !== null) {
                        $results[$number] = new PointResult($point, [], $error);
                        $this->progress->advance();
                        continue;
                    }
                    $live[$number] = [$point, $started[0], $started[1][$i]];
                    $runs[$number] = [];
                }
                if ($started !== null) {
                    $servers[] = [$group[0]->series, $started[0]];
                }
            }
            for ($run = $options->warmup > 0 ? 0 : 1; $run <= $options->repeat; ++$run) {
                foreach ($live as $number => [$point, $server, $load]) {
                    $url = $server->url . $point->path;
                    try {
                        if ($run === 0) {
                            $this->progress->point($scenario->name(), $point->describe() . ' (warm-up)', 1, $options->repeat, $number + 1);
                            $this->loadRun($load, $url, $point->connections, $options->warmup, null, "{$scenario->name()}-warmup");
                            $this->progress->spent($options->warmup);
                            continue;
                        }
                        $this->progress->point($scenario->name(), $point->describe(), $run, $options->repeat, $number + 1);
                        // The round, so that ratios pair the runs taken seconds apart (ScenarioResult::compare()).
                        $runs[$number][] = $this->loadRun($load, $url, $point->connections, $options->duration, $server, $scenario->name())->toArray() + ['round' => $run];
                        $this->progress->spent($options->duration + Options::RUN_OVERHEAD);
                    } catch (LoadException | BenchException | SkipException $error) {
                        $this->progress->say("{$scenario->name()} · {$point->describe()}: {$error->getMessage()}");
                        $results[$number] = new PointResult($point, $runs[$number], $error->getMessage());
                        unset($live[$number]);
                        $this->progress->advance();
                    }
                }
            }
            foreach ($live as $number => [$point]) {
                $results[$number] = new PointResult($point, $runs[$number]);
                $this->progress->advance();
            }
        } finally {
            $this->progress->turnsEnd();
            foreach (\array_reverse($servers) as [$series, $server]) {
                $server->stop();
                $this->noteTrouble($scenario, $series, $server, $notes);
            }
        }
        \ksort($results);

        return new ScenarioResult($scenario->name(), \array_values($results), \array_values(\array_unique($notes)));
    }

    /**
     * Starts the server of $group and makes its points' load generators, or records why it
     * cannot run (in $results, one per point, and $notes) and returns null.
     *
     * @param non-empty-list<Point> $group
     * @param list<PointResult> $results
     * @param list<string> $notes
     * @return array{Server, list<LoadGenerator>}|null
     */
    private function start(Scenario $scenario, string $serverName, array $group, array &$results, array &$notes): ?array
    {
        try {
            $loads = \array_map(fn (Point $point): LoadGenerator => $this->loadFor($scenario, $point), $group);

            return [$scenario->start($serverName, $this->rig), $loads];
        } catch (SkipException | BenchException $error) {
            $skip = $error instanceof SkipException;
            $message = ($skip ? PointResult::SKIPPED : 'failed to start: ') . $error->getMessage();
            $this->progress->say("{$scenario->name()} · {$group[0]->series}: {$message}");
            $notes[] = "{$group[0]->series} — {$message}";
            foreach ($group as $point) {
                $results[] = new PointResult($point, [], $message);
                $this->progress->advance();
            }

            return null;
        }
    }

    /**
     * What $server's logs tell of its runs, as notes: workers lost, requests failed.
     *
     * @param list<string> $notes
     */
    private function noteTrouble(Scenario $scenario, string $series, Server $server, array &$notes): void
    {
        $this->noteCrashes($scenario, $series, $server, $notes);
        $this->noteFailures($scenario, $series, $server, $notes);
    }

    /**
     * Adds a note (and says it) when $server lost workers while it was measured: its
     * figures then include time short of them, and its clients saw resets.
     *
     * @param list<string> $notes
     */
    private function noteCrashes(Scenario $scenario, string $series, Server $server, array &$notes): void
    {
        $crashes = $server->crashes();
        if ($crashes === []) {
            return;
        }
        $count = \count($crashes);
        $message = \sprintf('%d worker crash%s during the runs (%s%s): its figures include time short of a worker; its log is in logs/', $count, $count === 1 ? '' : 'es', $crashes[0], $count > 1 ? ', …' : '');
        $this->progress->say("{$scenario->name()} · {$series}: {$message}");
        $notes[] = "{$series} — {$message}";
    }

    /**
     * Adds a note (and says it) when requests to $server failed in its handler: they were
     * answered 500, which the figures count as non-2xx, and the first one logged says why.
     *
     * @param list<string> $notes
     */
    private function noteFailures(Scenario $scenario, string $series, Server $server, array &$notes): void
    {
        $failures = $server->failures();
        if ($failures === []) {
            return;
        }
        $count = \count($failures);
        $message = \sprintf('%d request%s failed in the handler (%s%s): answered 500, counted as non-2xx; its log is in logs/', $count, $count === 1 ? '' : 's', \mb_strimwidth($failures[0], 0, 300, '…'), $count > 1 ? ', …' : '');
        $this->progress->say("{$scenario->name()} · {$series}: {$message}");
        $notes[] = "{$series} — {$message}";
    }

    /** Why $server does not serve $point's page (status, or the expected text missing), or null. */
    private function pageError(Scenario $scenario, Server $server, Point $point): ?string
    {
        $url = $server->url . $point->path;
        [$status, $body] = Workspace::get($url);
        if ($status === 200 && \str_contains($body, $point->expect)) {
            return null;
        }
        $message = "{$url} answered HTTP {$status} without \"{$point->expect}\": " . \substr(\trim($body), 0, 160);
        $this->progress->say("{$scenario->name()} · {$point->describe()}: {$message}");

        return $message;
    }

    /** @param \Closure(): Server $restart stops the server and starts it again */
    private function measurePoint(Scenario $scenario, Server $server, Point $point, LoadGenerator $load, \Closure $restart): PointResult
    {
        $options = $this->rig->options;
        $url = $server->url . $point->path;
        $error = $this->pageError($scenario, $server, $point);
        if ($error !== null) {
            return new PointResult($point, [], $error);
        }
        $fresh = $scenario instanceof OwnLoad && $scenario->freshServer($point);
        $runs = [];
        try {
            if ($options->warmup > 0 && !$fresh) {
                $this->progress->point($scenario->name(), $point->describe() . ' (warm-up)', 1, $options->repeat);
                $this->loadRun($load, $url, $point->connections, $options->warmup, null, "{$scenario->name()}-warmup");
            }
            for ($run = 1; $run <= $options->repeat; ++$run) {
                if ($fresh && $run > 1) {
                    $server = $restart();
                    $url = $server->url . $point->path;
                }
                $this->progress->point($scenario->name(), $point->describe(), $run, $options->repeat);
                $runs[] = $this->loadRun($load, $url, $point->connections, $options->duration, $server, $scenario->name())->toArray();
            }
        } catch (LoadException | BenchException | SkipException $error) {
            $this->progress->say("{$scenario->name()} · {$point->describe()}: {$error->getMessage()}");

            return new PointResult($point, $runs, $error->getMessage());
        }

        return new PointResult($point, $runs);
    }

    /** @throws SkipException */
    private function loadFor(Scenario $scenario, Point $point): LoadGenerator
    {
        return $scenario instanceof OwnLoad ? $scenario->load($point, $this->rig) : $this->load;
    }

    /** One run of the load generator; with a server, its processes are sampled meanwhile. */
    private function loadRun(LoadGenerator $load, string $url, int $connections, int $seconds, ?Server $server, string $label): Measurement
    {
        $log = \sprintf('%s/%03d-%s.txt', $this->rawDir, ++$this->runs, $label);
        $sampler = new ProcessSampler($server?->pids() ?? [], ticksPerSecond: $this->ticksPerSecond, pageSize: $this->pageSize);
        $sampler->start();
        $process = $this->rig->workspace->spawn($load->name(), $load->command($url, $connections, $seconds, $this->rig->options->timeout), null, null, $log);
        $loadSampler = new ProcessSampler([$process->pid()], ticksPerSecond: $this->ticksPerSecond, pageSize: $this->pageSize);
        $loadSampler->start();
        do {
            \usleep(self::SAMPLE_EVERY_US);
            $sampler->sample();
            $loadSampler->sample();
        } while ($process->isRunning());
        $process->wait();
        $output = $process->output();
        if ($server === null) {
            @\unlink($log); // warm-ups are not results
        }

        return new Measurement($load->parse($output), $sampler->cpuPercent(), $sampler->peakRssBytes(), $sampler->startRssBytes(), $loadSampler->cpuPercent());
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
