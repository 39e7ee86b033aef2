<?php

declare(strict_types=1);

namespace Petrel\Tests\System;

use Petrel\Bench\Results;
use Petrel\Bench\Workspace;
use Petrel\Tests\Support\PetrelProcess;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\Attributes\Group;
use PHPUnit\Framework\TestCase;

/**
 * `bin/petrel bench`: its errors, and a --quick run of every scenario against real
 * servers (Petrel, nginx, php-fpm, MariaDB), checking that the report and the charts
 * exist and hold every row — not the speed.
 */
final class BenchTest extends TestCase
{
    private string $dir = '';

    protected function setUp(): void
    {
        $this->dir = \sys_get_temp_dir() . '/petrel-bench-test-' . \getmypid() . '-' . \bin2hex(\random_bytes(3));
        \mkdir($this->dir . '/tmp', 0755, true);
    }

    protected function tearDown(): void
    {
        \exec('rm -rf ' . \escapeshellarg($this->dir));
    }

    public function testBadArgumentsGetOneClearLine(): void
    {
        $cases = [
            [['bench', 'helo'], 'petrel: bench: unknown scenario "helo" (scenarios: hello, queries, latency, blog, symfony, websocket)'],
            [['bench', '--load=siege'], 'petrel: bench: --load must be wrk or ab, not "siege"'],
            [['bench', '--duration=0'], 'petrel: bench: --duration must be a whole number ≥ 1, not "0"'],
            [['bench', '--repeat=three'], 'petrel: bench: --repeat must be a whole number ≥ 1, not "three"'],
            [['bench', '--fast'], 'petrel: bench: unknown option --fast (see bin/petrel bench --help)'],
            [['bench', '--out'], 'petrel: bench: --out needs a value (--out=...)'],
            [['bench', "--report={$this->dir}"], "petrel: No results.json in {$this->dir}"],
        ];
        foreach ($cases as [$arguments, $message]) {
            $output = PetrelProcess::runCli($arguments, $code);
            self::assertSame(1, $code, $output);
            self::assertSame("{$message}\n", $output);
        }
    }

    /**
     * --report=DIR remakes the report of a run already made: a scenario or a run's option
     * beside it was ignored without a word (`bench hello --quick --report=DIR` rewrote DIR's
     * report of every scenario and exited 0, and the run it reads like never happened).
     */
    public function testReportTakesNoArgumentOfARun(): void
    {
        \mkdir("{$this->dir}/run");
        \copy(\dirname(__DIR__) . '/Unit/Bench/fixtures/results-quick.json', "{$this->dir}/run/results.json");
        $cases = [
            [['bench', 'hello', "--report={$this->dir}/run"], 'hello'],
            [['bench', "--report={$this->dir}/run", '--quick', "--out={$this->dir}/out"], '--quick --out'],
            [['bench', "--report={$this->dir}/run", 'hello', 'blog', '--workers=2'], 'hello blog --workers'],
        ];
        foreach ($cases as [$arguments, $others]) {
            $output = PetrelProcess::runCli($arguments, $code);
            self::assertSame([1, "petrel: bench: --report=DIR remakes a report and takes no other argument, not: {$others}\n"], [$code, $output]);
        }
        self::assertFileDoesNotExist("{$this->dir}/run/report.md");
        self::assertDirectoryDoesNotExist("{$this->dir}/out");
    }

    public function testHelp(): void
    {
        $output = PetrelProcess::runCli(['bench', '--help'], $code);

        self::assertSame(0, $code);
        self::assertStringContainsString('bin/petrel bench [SCENARIO...] [options]', $output);
        self::assertStringContainsString('--quick', $output);
        self::assertStringContainsString('--report=DIR takes no other argument', $output);
    }

    /** The bench/ scripts: --help prints the header, a wrong argument is one line and exit 2, not a run. */
    public function testBenchScriptsCheckTheirArguments(): void
    {
        $cases = [
            [['bench/recycle', '--duration=1'], 2, "bench: recycle takes no arguments, not '--duration=1': its settings are environment variables (see bench/recycle --help)\n"],
            [['bench/micro/http-instructions.sh', "{$this->dir}/nowhere"], 2, "bench: http-instructions.sh: '{$this->dir}/nowhere' is not a Petrel checkout with vendor/ installed (composer install)\n"],
            [['bench/micro/http-calls.sh', '--bogus'], 2, "bench: http-calls.sh: unknown option '--bogus' (see bench/micro/http-calls.sh --help)\n"],
            [['bench/micro/http-cpu.sh', $this->dir], 2, "http-cpu: '{$this->dir}' is not a Petrel checkout with vendor/ installed (composer install)\n"],
            [[\PHP_BINARY, 'bench/micro/redis-instructions.php', '--case=nope'], 2, "unknown case nope (cases: get, set, main)\n"],
            [[\PHP_BINARY, 'bench/micro/pool-lease.php', '--case=nope'], 2, "unknown case nope (cases: go, pdo, direct, first, first2)\n"],
        ];
        foreach ($cases as [$command, $exitCode, $output]) {
            [$code, $printed] = $this->script($command);
            self::assertSame([$exitCode, $output], [$code, $printed], \implode(' ', $command));
        }
        foreach (['bench/hello', 'bench/micro/http-instructions.sh', 'bench/micro/http-cpu.sh'] as $script) {
            [$code, $printed] = $this->script([$script, '--help']);
            self::assertSame(0, $code, $script);
            self::assertStringStartsWith("{$script} — ", $printed);
        }
    }

    /** A bench/ script whose server cannot start says why at once (its log goes with its temp dir). */
    public function testABenchScriptsServerThatCannotStartIsReportedWithItsLog(): void
    {
        $this->requireTools(['wrk', 'curl']);
        $started = \microtime(true);

        [$code, $printed] = $this->script(['bench/recycle'], ['PETREL_OPTIONS' => '--bogus']);

        self::assertSame(1, $code, $printed);
        self::assertStringContainsString('exited while starting; its log ends:', $printed);
        self::assertStringContainsString('Unknown option --bogus', $printed);
        self::assertLessThan(10.0, \microtime(true) - $started);
    }

    /**
     * Ctrl-C in a bench/ script: SIGINT to its whole process group, as a terminal sends it.
     * wrk stops on SIGINT with exit 0, so http-cpu.sh carried on, to awk on the /proc/PID/stat
     * of a worker that had stopped too (exit 2). A script started in the background by another
     * ignores SIGINT and cannot trap it: bench/recycle carried on, found its server gone and
     * died on awk the same way, its probe loop left running.
     *
     * @return iterable<string, array{string, array<string, string>, string, string, string, string}>
     */
    public static function interruptions(): iterable
    {
        // [script, settings, SIGINT as the script gets it, what runs when it is sent, how it ends, what it says last]
        $recycle = ['DURATION' => '5', 'WORKERS' => '1', 'CONNECTIONS' => '2'];
        yield 'Ctrl-C in http-cpu.sh' => ['bench/micro/http-cpu.sh', ['RUNS' => '1', 'DURATION' => '1', 'CONNS' => '2'], 'SIG_DFL', '/^wrk .* -d3s /',
            'killed by signal 2', "http-cpu: interrupted\n"];
        // Measuring: its probe loop was started just before.
        yield 'Ctrl-C in recycle' => ['bench/recycle', $recycle, 'SIG_DFL', '/^wrk .* -d5s /', 'killed by signal 2', "bench: recycle: interrupted\n"];
        yield 'recycle in the background of a script' => ['bench/recycle', $recycle, 'SIG_IGN', '/^wrk .* -d5s /', 'exit 1', "is gone: it exited during the run\n"];
    }

    /** @param array<string, string> $env */
    #[DataProvider('interruptions')]
    public function testAnInterruptedBenchScriptStopsAllItStartedWithoutAwksComplaint(string $script, array $env, string $sigint, string $running, string $end, string $last): void
    {
        $this->requireTools(['wrk', 'curl', 'setsid']);
        $log = "{$this->dir}/script.log";
        // setsid: a group of its own (not a group leader, it execs in place: the same pid).
        $start = "pcntl_signal(SIGINT, {$sigint}); pcntl_exec(" . \var_export(Workspace::which('setsid'), true) . ', [' . \var_export($script, true) . ']);';
        $process = \proc_open([\PHP_BINARY, '-r', $start], [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'w'], 2 => ['file', $log, 'a']],
            $pipes, \dirname(__DIR__, 2), $env + \getenv());
        self::assertIsResource($process);
        $pid = \proc_get_status($process)['pid'];
        $tempDir = null;
        try {
            $deadline = \microtime(true) + 20;
            while (\preg_grep($running, self::group($pid)) === [] && \microtime(true) < $deadline) {
                \usleep(50_000);
            }
            $started = self::group($pid);
            self::assertNotEmpty(\preg_grep($running, $started), "not running:\n" . \implode("\n", $started) . "\n" . \file_get_contents($log));
            // Its temp dir: where the server's output goes (Petrel retitles its processes).
            $outputs = \array_map(static fn (int $member): string => (string) @\readlink("/proc/{$member}/fd/1"), \array_keys($started));
            \preg_match('#^(/tmp/petrel-[\w-]+\.\w+)/#m', \implode("\n", $outputs), $match);
            self::assertArrayHasKey(1, $match, \implode("\n", $outputs));
            $tempDir = $match[1];
            \posix_kill(-$pid, \SIGINT);
            $deadline = \microtime(true) + 10;
            while (($status = \proc_get_status($process))['running'] && \microtime(true) < $deadline) {
                \usleep(20_000);
            }
            $printed = (string) \file_get_contents($log);
            \usleep(500_000); // time for what outlives it to show itself
            $seen = [
                'end' => $status['running'] ? 'running' : ($status['signaled'] ? "killed by signal {$status['termsig']}" : "exit {$status['exitcode']}"),
                'awk' => \str_contains($printed, 'awk'),
                'last' => \substr($printed, -\strlen($last)),
                'left running' => \array_values(self::group($pid)),
                'temp dir' => \is_dir($tempDir),
                'printed later' => \substr((string) \file_get_contents($log), \strlen($printed)),
            ];
        } finally {
            \posix_kill(-$pid, \SIGKILL);
            \proc_close($process);
            if ($tempDir !== null) {
                \exec('rm -rf ' . \escapeshellarg($tempDir)); // left when it was killed
            }
        }

        self::assertSame(['end' => $end, 'awk' => false, 'last' => $last, 'left running' => [], 'temp dir' => false, 'printed later' => ''], $seen, $printed);
    }

    /**
     * http-instructions.sh with a valgrind that counted nothing (here a stand-in that runs the
     * server without it) fails saying so: it printed "0 instructions/request" and exited 0.
     */
    public function testHttpInstructionsWithoutACountFailsSayingSo(): void
    {
        $this->requireTools(['curl']);
        \mkdir("{$this->dir}/bin");
        \file_put_contents("{$this->dir}/bin/valgrind", "#!/bin/sh\nwhile [ \"\${1#--}\" != \"\$1\" ]; do shift; done\nexec \"\$@\"\n");
        \chmod("{$this->dir}/bin/valgrind", 0755);

        [$code, $printed] = $this->script(['bench/micro/http-instructions.sh'],
            ['N' => '5', 'CONNECTIONS' => '1', 'PATH' => "{$this->dir}/bin:" . \getenv('PATH')]);

        self::assertSame(1, $code, $printed);
        self::assertStringContainsString("http-instructions: no instruction count in valgrind's output:", $printed);
        self::assertStringNotContainsString('instructions/request', $printed);
    }

    public function testQuickRunOfEveryScenario(): void
    {
        $this->requireTools(['wrk', 'nginx', 'gnuplot', 'node', 'php-fpm' . \PHP_MAJOR_VERSION . '.' . \PHP_MINOR_VERSION]);
        if (!\str_starts_with((string) \getenv('MYSQL_URL'), 'mysql://')) {
            $this->requireTools(['mariadbd', 'mariadb-install-db']);
        }
        if (!\is_file(\dirname(__DIR__) . '/Interop/node/node_modules/ws/package.json')) {
            $this->requireTools(['ws (npm install --prefix tests/Interop/node)']);
        }

        [$code, $output] = $this->bench(['--quick']);

        self::assertSame(0, $code, $output);
        $report = (string) \file_get_contents("{$this->dir}/out/report.md");
        self::assertStringNotContainsString('not measured', $report);
        self::assertStringNotContainsString('⚠', $report);
        foreach (['## Hello world', '## Three SQL queries', '## Query latency', '## The blog example', '## Symfony', '## WebSocket'] as $heading) {
            self::assertStringContainsString($heading, $report);
        }
        foreach (['| Petrel coroutine |', '| Petrel sync |', '| nginx return 200 |', '| bare PHP loop (floor) |', '| nginx + php-fpm (classic) |',
            '| Petrel direct |', '| nginx → Petrel (reverse proxy) |', '| Petrel hello (for scale) |'] as $row) {
            self::assertStringContainsString($row, $report);
        }
        // The blog against the hello of its own round (--quick: one round, so no range).
        self::assertMatchesRegularExpression('/^- Petrel direct \/ Petrel hello: \*\*[\d.]+×\*\*$/m', $report);
        foreach ([2, 8, 50] as $workers) {
            foreach ([100, 300, 500] as $connections) {
                self::assertMatchesRegularExpression("/^\\| {$workers} \\| {$connections} \\| [\\d,.]+ \\| [\\d,.]+ \\| [\\d.]+× \\|/m", $report);
            }
        }
        foreach ([0, 1, 5, 10, 50] as $ms) {
            self::assertMatchesRegularExpression("/^\\| {$ms} ms \\| [\\d,.]+ \\| [\\d,.]+ \\| [\\d.]+× \\|/m", $report);
        }
        foreach (['JSON /api/hello', 'Twig /'] as $route) {
            self::assertMatchesRegularExpression('/^\\| ' . \preg_quote($route, '/') . ' \\| [\\d,.]+ \\| [\\d,.]+ \\| [\\d,.]+ \\| [\\d.]+× \\| [\\d.]+× \\| [\\d.]+× \\|/m', $report);
        }
        self::assertMatchesRegularExpression('/^\\| Echo, 100 connections \\| [\\d,.]+ round trips\\/s \\|/m', $report);
        self::assertMatchesRegularExpression('/^\\| Echo, 1,000 connections \\| [\\d,.]+ round trips\\/s \\|/m', $report);
        self::assertMatchesRegularExpression('/^\\| Memory per open connection \\(1,000 held\\) \\| -?[\\d,.]+ KB, server RSS [\\d.]+ → [\\d.]+ MB \\|/m', $report);
        self::assertMatchesRegularExpression('/^\\| Broadcast fan-out to 1,000 clients \\| [\\d,.]+ ms( \\([^)]*\\))? to reach all/m', $report);
        foreach (['hello', 'queries', 'latency', 'blog', 'symfony', 'websocket'] as $chart) {
            self::assertStringStartsWith("\x89PNG", (string) \file_get_contents("{$this->dir}/out/{$chart}.png"));
            self::assertStringContainsString("![{$chart}]({$chart}.png)", $report);
        }

        $results = Results::fromJson((string) \file_get_contents("{$this->dir}/out/results.json"));
        $points = 0;
        foreach ($results->scenarios as $scenario) {
            foreach ($scenario->points as $point) {
                ++$points;
                self::assertCount(1, $point->runs, $point->point->describe());
                self::assertGreaterThan(0, $point->median('rps'), $point->point->describe());
                $non2xx = $point->median('non2xx');
                self::assertSame(0.0, $non2xx, $non2xx === 0.0 ? '' : $point->point->describe() . $this->loggedTrouble());
                self::assertGreaterThan(0, $point->median('peak_rss_mb'), $point->point->describe());
            }
        }
        self::assertSame(5 + 18 + 10 + 4 + 6 + 4, $points);
        self::assertArrayHasKey('nginx', $results->machine);
        self::assertArrayHasKey('mariadb', $results->machine);
        self::assertStringStartsWith('node v', $results->machine['websocket_load_generator'] ?? '');
        self::assertStringContainsString('[1/47] hello · Petrel coroutine', $output);
        $this->assertNothingLeftRunning();
    }

    public function testQuickHelloWithAb(): void
    {
        $this->requireTools(['ab', 'nginx', 'php-fpm' . \PHP_MAJOR_VERSION . '.' . \PHP_MINOR_VERSION]);

        [$code, $output] = $this->bench(['hello', '--quick', '--load=ab', '--workers=1']);

        self::assertSame(0, $code, $output);
        $results = Results::fromJson((string) \file_get_contents("{$this->dir}/out/results.json"));
        self::assertSame(['hello'], \array_map(static fn ($s) => $s->name, $results->scenarios));
        self::assertStringStartsWith('ApacheBench', $results->machine['load_generator'] ?? '');
        self::assertSame(1, $results->options['workers']);
        foreach ($results->scenarios[0]->points as $point) {
            self::assertGreaterThan(0, $point->median('rps'), $point->point->describe());
        }
        $this->assertNothingLeftRunning();
    }

    /**
     * Runs bin/petrel bench with its work directory under this test's directory.
     *
     * @param list<string> $arguments
     * @return array{int, string}
     */
    private function bench(array $arguments): array
    {
        $process = \proc_open([\PHP_BINARY, PetrelProcess::bin(), 'bench', ...$arguments, "--out={$this->dir}/out"],
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', "{$this->dir}/output.log", 'a'], 2 => ['file', "{$this->dir}/output.log", 'a']],
            $pipes, null, ['TMPDIR' => "{$this->dir}/tmp"] + \getenv());
        self::assertIsResource($process);
        $code = \proc_close($process);

        return [$code, (string) \file_get_contents("{$this->dir}/output.log")];
    }

    /**
     * Runs a script of bench/ from the project root: [exit code, stdout and stderr].
     *
     * @param non-empty-list<string> $command
     * @param array<string, string> $env added to this process's environment
     * @return array{int, string}
     */
    private function script(array $command, array $env = []): array
    {
        $process = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', "{$this->dir}/script.log", 'w'], 2 => ['file', "{$this->dir}/script.log", 'a']],
            $pipes, \dirname(__DIR__, 2), $env + \getenv());
        self::assertIsResource($process);
        $code = \proc_close($process);

        return [$code, (string) \file_get_contents("{$this->dir}/script.log")];
    }

    /**
     * For a failure message: the lines of the run's server logs that tell of trouble (errors,
     * exceptions, refused or timed-out connections), the blocked-loop warnings of a
     * 2-core machine under load left out. The logs go with this test's directory.
     */
    private function loggedTrouble(): string
    {
        $lines = [];
        foreach (\glob("{$this->dir}/out/logs/*.log") ?: [] as $file) {
            foreach (\file($file, \FILE_IGNORE_NEW_LINES) ?: [] as $line) {
                if (\preg_match('/error|exception|fatal|failed|refused|timed? ?out|too many/i', $line) === 1
                    && !\str_contains($line, 'event loop was blocked')
                ) {
                    $lines[] = \basename($file) . ': ' . $line;
                }
            }
        }

        return $lines === [] ? ' (the servers logged no error)' : \sprintf(
            "; the servers logged (%d lines, the first 40):\n%s",
            \count($lines),
            \implode("\n", \array_slice($lines, 0, 40)),
        );
    }

    /** No process started by the run is still alive, and its work directory is gone. */
    private function assertNothingLeftRunning(): void
    {
        $left = [];
        foreach (\glob('/proc/[0-9]*/cmdline') ?: [] as $file) {
            $cmdline = \str_replace("\0", ' ', (string) @\file_get_contents($file));
            if (\str_contains($cmdline, "{$this->dir}/tmp")) {
                $left[] = $cmdline;
            }
        }
        self::assertSame([], $left);
        self::assertSame([], \glob("{$this->dir}/tmp/*") ?: []);
    }

    /**
     * The command lines of the processes of process group $pgid.
     *
     * @return array<int, string> by pid
     */
    private static function group(int $pgid): array
    {
        $found = [];
        foreach (\glob('/proc/[0-9]*/stat') ?: [] as $file) {
            $stat = (string) @\file_get_contents($file);
            // After the ")" that ends the command name: state, ppid, pgrp.
            $fields = \explode(' ', \substr($stat, (int) \strrpos($stat, ')') + 2));
            if (($fields[2] ?? '') === (string) $pgid) {
                $found[(int) \basename(\dirname($file))] = \trim(\str_replace("\0", ' ', (string) @\file_get_contents(\dirname($file) . '/cmdline')));
            }
        }

        return \array_filter($found, static fn (string $cmdline): bool => $cmdline !== '');
    }

    /** @param list<string> $tools */
    private function requireTools(array $tools): void
    {
        $missing = \array_values(\array_filter($tools, static fn (string $tool): bool => Workspace::which($tool) === null));
        if ($missing === []) {
            return;
        }
        if (\getenv('PETREL_REQUIRE_SERVICES') === '1') {
            self::fail('PETREL_REQUIRE_SERVICES=1 but ' . \implode(', ', $missing) . ' not installed');
        }
        self::markTestSkipped(\implode(', ', $missing) . ' not installed');
    }
}
