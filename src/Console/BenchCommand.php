<?php

declare(strict_types=1);

namespace Petrel\Console;

use Petrel\Bench\Bench;
use Petrel\Bench\BenchException;
use Petrel\Bench\Machine;
use Petrel\Bench\Options;

/**
 * `petrel bench [SCENARIO…] [--quick] [--duration=S] [--repeat=N] [--warmup=S]
 * [--workers=N] [--load=wrk|ab] [--out=DIR]` and `petrel bench --report=DIR`, alone.
 */
final class BenchCommand
{
    public const USAGE = <<<'TXT'
        Usage:
          bin/petrel bench [SCENARIO...] [options]   run the seeds' comparisons, write report.md, results.json, charts
          bin/petrel bench --report=DIR              remake DIR/report.md and the charts from DIR/results.json
                                                     (--report=DIR takes no other argument: no scenario, no option)

        Scenarios (default: all, in this order):
          hello     examples/hello.php: Petrel coroutine and sync vs nginx `return 200` vs nginx + php-fpm
          queries   examples/db.php on MariaDB: sync vs coroutine, workers {2, 8, 50} x concurrency {100, 300, 500}
          latency   examples/db.php /slow?ms={0,1,5,10,50}: sync vs coroutine as the database gets slower
          blog      examples/blog `/`: Petrel direct vs behind an nginx reverse proxy vs nginx + php-fpm
          symfony   examples/symfony, JSON route and Twig page: nginx + php-fpm vs Petrel sync vs Petrel coroutine
          websocket examples/ws-echo.php round trips/s and p99 at c=100 and c=1000, memory per open
                    connection, examples/chat broadcast fan-out to 1,000 clients (needs node and
                    `npm install --prefix tests/Interop/node`)

        Options:
          --quick           1 s per run, 1 run, 1 s warm-up: checks that everything works (figures mean little)
          --duration=S      seconds per run, default 5
          --repeat=N        runs per point (the report shows their median and min-max), default 3
          --warmup=S        seconds of load before the runs of each point, default 2
          --workers=N       workers for hello, latency, blog, symfony and websocket echo, default: CPU count
          --load=TOOL       wrk (default) or ab
          --out=DIR         default bench/results/<UTC date-time>

        MariaDB: DATABASE_URL or MYSQL_URL (mysql://user:pass@host:port/db) if set, else a private
        mariadbd started for the run. Servers bind 127.0.0.1 on free ports; all are stopped at the end.
        TXT;

    /** @param array<string, string> $env */
    public function __construct(private readonly string $root, private readonly array $env)
    {
    }

    /**
     * @param list<string> $arguments
     * @param array<string, string|true> $flags
     */
    public function run(array $arguments, array $flags, string $commandLine): int
    {
        $bench = new Bench($this->root, $this->env, \STDERR);
        try {
            if (isset($flags['report'])) {
                $dir = self::reportDir($arguments, $flags);
                $bench->report($dir);
                self::printWritten($dir);

                return 0;
            }
            $options = $this->options($arguments, $flags);
            $out = isset($flags['out']) ? self::string($flags, 'out') : \getcwd() . '/bench/results/' . \gmdate('Ymd-His');
            $results = $bench->run($options, $out, $commandLine);
        } catch (BenchException $error) {
            throw new ConsoleException($error->getMessage(), 0, $error);
        }
        self::printWritten($out);
        $failed = 0;
        $skipped = 0;
        foreach ($results->scenarios as $scenario) {
            foreach ($scenario->points as $point) {
                if ($point->skipped()) {
                    ++$skipped;
                } elseif (!$point->measured() || $point->error !== null) {
                    ++$failed;
                }
            }
        }
        if ($skipped > 0) {
            \fwrite(\STDERR, "petrel bench: {$skipped} point(s) skipped — see the notes in report.md for what to install\n");
        }
        if ($failed > 0) {
            \fwrite(\STDERR, "petrel bench: {$failed} point(s) failed — see report.md and the logs it names\n");

            return 1;
        }

        return 0;
    }

    /**
     * @param list<string> $arguments
     * @param array<string, string|true> $flags
     */
    private function options(array $arguments, array $flags): Options
    {
        $known = ['quick', 'duration', 'repeat', 'warmup', 'workers', 'load', 'out'];
        foreach (\array_keys($flags) as $flag) {
            if (!\in_array($flag, $known, true)) {
                throw new ConsoleException("bench: unknown option --{$flag} (see bin/petrel bench --help)");
            }
        }
        foreach ($arguments as $name) {
            if (!\in_array($name, Options::SCENARIOS, true)) {
                throw new ConsoleException("bench: unknown scenario \"{$name}\" (scenarios: " . \implode(', ', Options::SCENARIOS) . ')');
            }
        }
        // In the plan's order, whatever order they were named in.
        $scenarios = $arguments === [] ? Options::SCENARIOS : \array_values(\array_intersect(Options::SCENARIOS, $arguments));
        $load = isset($flags['load']) ? self::string($flags, 'load') : 'wrk';
        if (!\in_array($load, ['wrk', 'ab'], true)) {
            throw new ConsoleException("bench: --load must be wrk or ab, not \"{$load}\"");
        }
        $workers = isset($flags['workers']) ? self::integer($flags, 'workers', 1) : Machine::cores();
        $quick = isset($flags['quick']);
        $defaults = $quick ? Options::QUICK : Options::DEFAULTS;

        return new Options($scenarios,
            isset($flags['duration']) ? self::integer($flags, 'duration', 1) : $defaults['duration'],
            isset($flags['repeat']) ? self::integer($flags, 'repeat', 1) : $defaults['repeat'],
            isset($flags['warmup']) ? self::integer($flags, 'warmup', 0) : $defaults['warmup'],
            $load, $workers, $quick);
    }

    /**
     * --report=DIR's directory. It remakes the report of a run already made, so a scenario or
     * a run's option beside it would have no effect: refused rather than ignored, as
     * `bench hello --quick --report=DIR` reads like a run that never happens.
     *
     * @param list<string> $arguments
     * @param array<string, string|true> $flags
     */
    private static function reportDir(array $arguments, array $flags): string
    {
        $dir = self::string($flags, 'report');
        $others = [...$arguments, ...\array_map(static fn (string $flag): string => "--{$flag}", \array_keys(\array_diff_key($flags, ['report' => true])))];
        if ($others !== []) {
            throw new ConsoleException('bench: --report=DIR remakes a report and takes no other argument, not: ' . \implode(' ', $others));
        }

        return $dir;
    }

    private static function printWritten(string $dir): void
    {
        $files = \array_merge(["{$dir}/report.md", "{$dir}/results.json"], \glob("{$dir}/*.png") ?: []);
        echo "petrel bench: wrote\n";
        foreach ($files as $file) {
            if (\is_file($file)) {
                echo "  {$file}\n";
            }
        }
    }

    /** @param array<string, string|true> $flags */
    private static function string(array $flags, string $name): string
    {
        $value = $flags[$name] ?? true;
        if ($value === true || $value === '') {
            throw new ConsoleException("bench: --{$name} needs a value (--{$name}=...)");
        }

        return $value;
    }

    /** @param array<string, string|true> $flags */
    private static function integer(array $flags, string $name, int $min): int
    {
        $value = self::string($flags, $name);
        if (!\ctype_digit($value) || (int) $value < $min) {
            throw new ConsoleException("bench: --{$name} must be a whole number ≥ {$min}, not \"{$value}\"");
        }

        return (int) $value;
    }
}
