<?php

declare(strict_types=1);

namespace Petrel\Bench;

use Petrel\Bench\Internal\Progress;
use Petrel\Bench\Load\ApacheBench;
use Petrel\Bench\Load\LoadGenerator;
use Petrel\Bench\Load\Wrk;
use Petrel\Bench\Report\Gnuplot;
use Petrel\Bench\Report\ReportWriter;
use Petrel\Bench\Scenario\BlogScenario;
use Petrel\Bench\Scenario\HelloScenario;
use Petrel\Bench\Scenario\LatencyScenario;
use Petrel\Bench\Scenario\OwnLoad;
use Petrel\Bench\Scenario\QueriesScenario;
use Petrel\Bench\Scenario\Scenario;
use Petrel\Bench\Scenario\SymfonyScenario;
use Petrel\Bench\Scenario\WebSocketScenario;

/**
 * `petrel bench`: runs the chosen scenarios against servers it starts and stops itself,
 * then writes results.json, report.md and the charts.
 */
final class Bench
{
    /** @return array<string, Scenario> every scenario, by name, in the order a full run takes them */
    public static function scenarios(): array
    {
        $scenarios = [];
        foreach ([new HelloScenario(), new QueriesScenario(), new LatencyScenario(), new BlogScenario(), new SymfonyScenario(), new WebSocketScenario()] as $scenario) {
            $scenarios[$scenario->name()] = $scenario;
        }

        return $scenarios;
    }

    /**
     * @param array<string, string> $env
     * @param resource $progress where the progress line goes (STDERR)
     */
    public function __construct(
        private readonly string $root,
        private readonly array $env,
        private $progress,
    ) {
    }

    /** @return Results the results, also written under $out */
    public function run(Options $options, string $out, string $command): Results
    {
        $load = self::loadGenerator($options);
        $scenarios = self::scenarios();
        $usesLoad = \array_filter($options->scenarios, static fn (string $name): bool => !$scenarios[$name] instanceof OwnLoad) !== [];
        if ($usesLoad && Workspace::which($load->name()) === null) {
            throw new BenchException(SkipException::missing($load->name(), $load->package())->getMessage()
                . ($load->name() === 'wrk' ? '; or use --load=ab (apache2-utils)' : ''));
        }
        self::prepareOutput($out);
        $plans = [];
        foreach ($options->scenarios as $name) {
            $plans[$name] = $scenarios[$name]->plan($options);
        }
        $total = \array_sum(\array_map('count', $plans));
        $started = \gmdate('Y-m-d\TH:i:s\Z');
        $workspace = new Workspace();
        $rig = new Rig($workspace, $this->root, $options, $this->env);
        [$ticks, $page] = Machine::procUnits();
        $progress = new Progress($this->progress, $total, $options->secondsPerPoint());
        $runner = new Runner($rig, $load, $progress, "{$out}/raw", $ticks, $page);
        if (\in_array('queries', $options->scenarios, true)) {
            $this->checkMysqlCapacity($rig, $progress);
        }
        $results = [];
        $cleanUp = static function () use ($workspace, $out): void {
            $workspace->close();
            $workspace->keepLogs("{$out}/logs");
            $workspace->removeFiles();
        };
        $this->stopOnSignals($cleanUp);
        try {
            foreach ($plans as $name => $points) {
                $results[] = $runner->run($scenarios[$name], $points);
            }
            $mysqlUrl = \array_intersect(['queries', 'latency'], $options->scenarios) !== [] ? self::tryMysql($rig) : null;
            $machine = Machine::facts($load, $mysqlUrl, \in_array('websocket', $options->scenarios, true));
        } finally {
            $progress->finish();
            $cleanUp();
        }
        $results = new Results($command, $started, \gmdate('Y-m-d\TH:i:s\Z'), $machine, $options->toArray(), $results);
        (new ReportWriter($scenarios, Gnuplot::find()))->write($results, $out);

        return $results;
    }

    /** Remakes report.md and the charts from DIR/results.json. */
    public function report(string $dir): Results
    {
        $json = @\file_get_contents("{$dir}/results.json");
        if ($json === false) {
            throw new BenchException("No results.json in {$dir}");
        }
        $results = Results::fromJson($json);
        (new ReportWriter(self::scenarios(), Gnuplot::find()))->write($results, $dir);

        return $results;
    }

    private static function loadGenerator(Options $options): LoadGenerator
    {
        return match ($options->load) {
            'ab' => new ApacheBench(),
            default => new Wrk(Machine::cores()),
        };
    }

    /**
     * A MariaDB given by URL (the bench's own takes 4,000) that takes fewer connections than
     * the queries scenario may open: said before the run, which it would otherwise spend on
     * 500s (noted under the scenario's table afterwards, from the servers' logs).
     */
    private function checkMysqlCapacity(Rig $rig, Progress $progress): void
    {
        $url = $rig->givenMysqlUrl();
        $max = $url === null ? null : Machine::mysqlMaxConnections($url);
        $warning = $max === null ? null : QueriesScenario::capacityWarning($max);
        if ($warning !== null) {
            $progress->say("petrel bench: warning: {$warning}");
        }
    }

    private static function tryMysql(Rig $rig): ?string
    {
        try {
            return $rig->mysqlUrl();
        } catch (SkipException) {
            return null;
        }
    }

    /**
     * Creates $out (and raw/) or empties it of what an earlier run wrote there: its raw
     * output, logs, report, results.json and the charts, so that a run into the same
     * --out never leaves another run's files (a chart of a scenario not run now, the logs
     * of its servers) beside its report. Other files in $out are left alone.
     *
     * @throws BenchException when it cannot be created
     */
    public static function prepareOutput(string $out): void
    {
        if (!\is_dir("{$out}/raw") && !@\mkdir("{$out}/raw", 0755, true)) {
            throw new BenchException("Cannot create the output directory {$out}");
        }
        $old = [...(\glob("{$out}/raw/*.txt") ?: []), ...(\glob("{$out}/logs/*.log") ?: []), "{$out}/report.md", "{$out}/results.json"];
        foreach (\array_keys(self::scenarios()) as $name) {
            \array_push($old, "{$out}/{$name}.png", "{$out}/charts/{$name}.dat", "{$out}/charts/{$name}.gp");
        }
        foreach ($old as $file) {
            if (\is_file($file)) {
                \unlink($file);
            }
        }
    }

    /** Ctrl-C or a kill still stops every server this run started. */
    private function stopOnSignals(\Closure $cleanUp): void
    {
        if (!\function_exists('pcntl_signal')) {
            return;
        }
        \pcntl_async_signals(true);
        foreach ([\SIGINT, \SIGTERM, \SIGHUP] as $signal) {
            \pcntl_signal($signal, static function (int $signal) use ($cleanUp): void {
                \fwrite(\STDERR, "\npetrel bench: interrupted, stopping the servers it started\n");
                $cleanUp();
                exit(128 + $signal);
            });
        }
    }
}
