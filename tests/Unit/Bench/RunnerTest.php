<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Bench;

use Petrel\Bench\Internal\Progress;
use Petrel\Bench\Load\LoadException;
use Petrel\Bench\Load\LoadGenerator;
use Petrel\Bench\Load\LoadResult;
use Petrel\Bench\Options;
use Petrel\Bench\Point;
use Petrel\Bench\Report\Chart;
use Petrel\Bench\Rig;
use Petrel\Bench\Runner;
use Petrel\Bench\ScenarioResult;
use Petrel\Bench\Scenario\OwnLoad;
use Petrel\Bench\Scenario\Scenario;
use Petrel\Bench\Scenario\TakesTurns;
use Petrel\Bench\Server\Server;
use Petrel\Bench\Workspace;
use PHPUnit\Framework\TestCase;

/**
 * The Runner with a scenario that brings its own load generator: its generator is used,
 * and a point that asks for a fresh server gets a new start before each run and no
 * warm-up, while the others share one start and are warmed up. And with a scenario whose
 * points take turns: every server up at once, one run of each point per round. Servers
 * are `php -S`.
 */
final class RunnerTest extends TestCase
{
    private Workspace $workspace;

    protected function setUp(): void
    {
        $this->workspace = new Workspace();
        \file_put_contents($this->workspace->path('www/index.php'), '<?php echo "page ok";');
    }

    protected function tearDown(): void
    {
        $this->workspace->close();
        $this->workspace->removeFiles();
    }

    public function testFreshServerPointsRestartBeforeEachRunAndSkipTheWarmUp(): void
    {
        $options = new Options(['fake'], duration: 1, repeat: 3, warmup: 1);
        $rig = new Rig($this->workspace, \dirname(__DIR__, 3), $options, []);
        $scenario = new FakeScenario($this->workspace);
        $stream = \fopen('php://memory', 'w+');
        self::assertIsResource($stream);
        $raw = \dirname($this->workspace->path('raw/run.txt'));
        $runner = new Runner($rig, new FakeLoad('wrk-would-be-wrong'), new Progress($stream, 2, 1.0), $raw);

        $result = $runner->run($scenario, $scenario->plan($options));

        self::assertSame(['fresh' => 3, 'shared' => 1], $scenario->starts);
        self::assertSame(['fresh' => 3, 'shared' => 4], $scenario->load->runs); // shared: warm-up + 3 runs
        foreach ($result->points as $point) {
            self::assertNull($point->error, (string) $point->error);
            self::assertCount(3, $point->runs);
            self::assertSame(7.0, $point->median('rps'));
            self::assertGreaterThan(0.0, $point->median('peak_rss_mb'));
            self::assertGreaterThan(0.0, $point->median('start_rss_mb'));
        }
        foreach ($scenario->servers as $server) {
            foreach ($server->processes() as $process) {
                self::assertFalse($process->isRunning(), "{$process->name} still runs");
            }
        }
    }

    public function testPointsThatTakeTurnsRunInRoundsOnServersStartedTogether(): void
    {
        $scenario = new TurnsScenario($this->workspace);
        [$result, $log] = $this->runTurns($scenario);
        $load = $scenario->load;

        // Each server started once, both before the first run; the point whose page is
        // wrong never runs; the others: both warm-ups, then one run of each per round.
        self::assertSame(['a' => 1, 'wrong' => 1, 'b' => 1], $scenario->starts);
        self::assertSame(['a', 'b', 'a', 'b', 'a', 'b', 'a', 'b'], $load->order);
        self::assertSame(['a', 'wrong', 'b'], \array_map(static fn ($point) => $point->point->series, $result->points));
        self::assertCount(3, $result->points[0]->runs);
        self::assertSame([1, 2, 3], \array_column($result->points[0]->runs, 'round'));
        self::assertSame(7.0, $result->points[0]->median('rps'));
        self::assertSame(3, $result->compare('a', 'b')?->rounds); // paired by round
        self::assertStringContainsString('without "page ok"', (string) $result->points[1]->error);
        self::assertSame([], $result->points[1]->runs);
        self::assertCount(3, $result->points[2]->runs);
        // The time left counts down during the rounds (2 points of 1 s left, a's warm-up gone).
        self::assertStringContainsString('[3/3] turns · b (warm-up) · run 1/3 · ~1s left', $log);
        self::assertStringContainsString('[1/3] turns · a · run 1/3', $log);
        foreach ($scenario->servers as $server) {
            foreach ($server->processes() as $process) {
                self::assertFalse($process->isRunning(), "{$process->name} still runs");
            }
        }
    }

    public function testAPointWhoseRunFailsLeavesTheRoundsWithTheRunsItHad(): void
    {
        $scenario = new TurnsScenario($this->workspace);
        $scenario->load->failAt = ['a' => 3]; // warm-up, run 1, then run 2 breaks
        [$result] = $this->runTurns($scenario);

        self::assertSame(['a', 'b', 'a', 'b', 'a', 'b', 'b'], $scenario->load->order);
        self::assertSame([1], \array_column($result->points[0]->runs, 'round'));
        self::assertStringContainsString('fake printed no result: broken', (string) $result->points[0]->error);
        self::assertNull($result->points[2]->error);
        self::assertCount(3, $result->points[2]->runs);
    }

    public function testWorkersLostDuringTheRunsAreNotedInTheReport(): void
    {
        $scenario = new TurnsScenario($this->workspace);
        $scenario->crashingServer = 'b'; // its page logs a worker crash as bin/petrel's master would
        [$result, $log] = $this->runTurns($scenario);

        self::assertCount(3, $result->points[2]->runs); // measured all the same
        self::assertCount(1, $result->notes, \implode("\n", $result->notes));
        self::assertMatchesRegularExpression('/^b — \\d+ worker crashes during the runs \\(php-s-b: worker 2 \\(pid 123\\) was killed by signal 11; restarting, …\\): its figures include time short of a worker/', $result->notes[0]);
        self::assertStringContainsString('turns · b: ', $log);
    }

    public function testRequestsThatFailedInTheHandlerAreNotedWithTheFirstCause(): void
    {
        $scenario = new TurnsScenario($this->workspace);
        $scenario->failingServer = 'a'; // its page logs a failed request as a Petrel worker would
        [$result, $log] = $this->runTurns($scenario);

        self::assertCount(3, $result->points[0]->runs); // measured all the same
        self::assertCount(1, $result->notes, \implode("\n", $result->notes));
        self::assertMatchesRegularExpression('/^a — \\d+ requests failed in the handler \\(php-s-a: petrel: GET \\/ failed: '
            . 'Petrel\\\\Database\\\\ConnectionException: Could not connect to MySQL at 127\\.0\\.0\\.1:3306: Too many connections \\(1040, SQLSTATE HY000\\), …\\): '
            . 'answered 500, counted as non-2xx/', $result->notes[0]);
        self::assertStringContainsString('turns · a: ', $log);
    }

    public function testFailedRequestsAreNotedForPointsMeasuredOneAfterTheOther(): void
    {
        \file_put_contents($this->workspace->path('www/index.php'), '<?php error_log("petrel: GET / failed: RuntimeException: boom"); echo "page ok";');
        $options = new Options(['fake'], duration: 1, repeat: 1, warmup: 0);
        $scenario = new FakeScenario($this->workspace);
        $stream = \fopen('php://memory', 'w+');
        self::assertIsResource($stream);
        $runner = new Runner(new Rig($this->workspace, \dirname(__DIR__, 3), $options, []), new FakeLoad('fake'), new Progress($stream, 2, 1.0), \dirname($this->workspace->path('raw/run.txt')));

        $result = $runner->run($scenario, $scenario->plan($options));

        self::assertCount(2, $result->notes, \implode("\n", $result->notes));
        self::assertMatchesRegularExpression('/^fresh — \\d+ requests? failed in the handler \\(php-s-fresh: petrel: GET \\/ failed: RuntimeException: boom(, …)?\\): answered 500/', $result->notes[0]);
        self::assertMatchesRegularExpression('/^shared — \\d+ requests? failed in the handler/', $result->notes[1]);
    }

    public function testFailuresAreTheRequestsPetrelLogsAsFailed(): void
    {
        $lines = [
            '[2026-11-28 18:12:15] [pid 564] [req 564-6] petrel: GET / failed: Petrel\\Pool\\PoolExhaustedException: No connection free after 5 s',
            'Caused by Petrel\\Database\\Mysql\\MysqlException: MySQL error 1040 (HY000): Too many connections in /x.php:46',
            '[2026-11-28 18:12:16] [pid 564] petrel: the event loop was blocked for 122 ms (threshold 100 ms) at /app.php:56',
            '[2026-11-28 18:12:17] [pid 565] [req 565-9] petrel: POST /posts?draft=1 failed: RuntimeException: boom',
        ];
        self::assertSame([
            'logger: petrel: GET / failed: Petrel\\Pool\\PoolExhaustedException: No connection free after 5 s',
            'logger: petrel: POST /posts?draft=1 failed: RuntimeException: boom',
        ], $this->serverThatLogged($lines)->failures());
    }

    public function testCrashesAreTheUnplannedExitsPetrelAndPhpFpmLog(): void
    {
        $lines = [
            '[2026-11-28 10:40:12] [pid 18801] petrel: worker 2 (pid 18803) was killed by signal 11; restarting in 0.1 s',
            '[2026-11-28 10:40:13] [pid 18801] petrel: worker 1 (pid 18804) exited with code 255 (Allowed memory size exhausted; see above); restarting',
            '[2026-11-28 10:40:14] [pid 18801] petrel: task worker 1 (pid 18805) exited with code 0; starting a fresh one',
            '[2026-11-28 10:40:15] [pid 18801] petrel: worker 1 (pid 18806) retired after 3000 requests',
            '[2026-11-28 10:40:16] [pid 18801] petrel: stopping 2 worker(s) gracefully',
            '[28-Nov-2026 10:40:17] WARNING: [pool bench] child 2001 exited on signal 11 (SIGSEGV) after 12.5 seconds from start',
            '[28-Nov-2026 10:40:18] WARNING: [pool bench] child 2002 exited with code 255 after 3.1 seconds from start',
            '[28-Nov-2026 10:40:19] NOTICE: [pool bench] child 2003 exited with code 0 after 9.0 seconds from start',
        ];
        self::assertSame([
            'logger: worker 2 (pid 18803) was killed by signal 11; restarting',
            'logger: worker 1 (pid 18804) exited with code 255 (Allowed memory size exhausted; see above); restarting',
            'logger: worker 1 (pid 18805) exited with code 0; starting a fresh one',
            'logger: child 2001 exited on signal 11 (SIGSEGV) after 12.5 seconds from start',
            'logger: child 2002 exited with code 255 after 3.1 seconds from start',
        ], $this->serverThatLogged($lines)->crashes());
    }

    /** @param list<string> $lines what the server's one process printed, its log */
    private function serverThatLogged(array $lines): Server
    {
        $process = $this->workspace->spawn('logger', [\PHP_BINARY, '-r', 'echo ' . \var_export(\implode("\n", $lines) . "\n", true) . ';']);
        $process->wait();

        return new Server('logger', 'http://127.0.0.1:1', [$process]);
    }

    /**
     * Runs $scenario (3 runs of 1 s after a warm-up) with its FakeLoad as the Runner's load.
     *
     * @return array{ScenarioResult, string} the result and the progress log
     */
    private function runTurns(TurnsScenario $scenario): array
    {
        $options = new Options(['turns'], duration: 1, repeat: 3, warmup: 1);
        $rig = new Rig($this->workspace, \dirname(__DIR__, 3), $options, []);
        $stream = \fopen('php://memory', 'w+');
        self::assertIsResource($stream);
        $runner = new Runner($rig, $scenario->load, new Progress($stream, 3, 1.0), \dirname($this->workspace->path('raw/run.txt')));

        $result = $runner->run($scenario, $scenario->plan($options));
        \rewind($stream);

        return [$result, (string) \stream_get_contents($stream)];
    }
}

/** Counts its runs per point (by the URL's port's server) and reports 7 req/s. */
final class FakeLoad implements LoadGenerator
{
    /** @var array<string, int> */
    public array $runs = [];
    /** @var list<string> server names in the order of their runs */
    public array $order = [];
    /** @var array<string, int> server name => the run (warm-up included) whose output is unreadable */
    public array $failAt = [];

    /** @param array<int, string> $names port => server name */
    public function __construct(private readonly string $name, public array $names = [])
    {
    }

    public function name(): string
    {
        return $this->name;
    }

    public function package(): string
    {
        return 'none';
    }

    public function command(string $url, int $connections, int $seconds, float $timeout): array
    {
        $name = $this->names[(int) \parse_url($url, \PHP_URL_PORT)] ?? 'unknown';
        $this->runs[$name] = ($this->runs[$name] ?? 0) + 1;
        $this->order[] = $name;

        return [\PHP_BINARY, '-r', ($this->failAt[$name] ?? 0) === $this->runs[$name] ? 'echo "broken";' : 'echo "done";'];
    }

    /** `php -S` on $docroot, up once it serves $expect, its runs counted as $server's. */
    public function serve(Workspace $workspace, string $server, string $docroot, string $expect): Server
    {
        $port = $workspace->freePort();
        $process = $workspace->spawn("php-s-{$server}", [\PHP_BINARY, '-S', "127.0.0.1:{$port}", '-t', $docroot]);
        $workspace->waitUntilServing("http://127.0.0.1:{$port}/", $expect, $process, 20.0);
        $this->names[$port] = $server;

        return new Server($server, "http://127.0.0.1:{$port}", [$process]);
    }

    public function parse(string $output): LoadResult
    {
        if (\trim($output) === 'broken') {
            throw LoadException::unreadable($this->name, $output);
        }

        return new LoadResult(7.0, 7, 1.0, 2.0, 3.0, 0, 0);
    }
}

/**
 * What both fake scenarios share: `php -S` servers counted per start, a FakeLoad that
 * counts the runs, no report. A subclass names itself, plans its points and serves a page
 * from a document root per server.
 */
abstract class PhpServerScenario implements Scenario
{
    /** @var array<string, int> */
    public array $starts = [];
    /** @var list<Server> */
    public array $servers = [];
    public readonly FakeLoad $load;

    public function __construct(protected readonly Workspace $workspace)
    {
        $this->load = new FakeLoad('fake');
    }

    public function title(): string
    {
        return \ucfirst($this->name());
    }

    public function description(): string
    {
        return '';
    }

    public function start(string $server, Rig $rig): Server
    {
        $this->starts[$server] = ($this->starts[$server] ?? 0) + 1;
        [$docroot, $page] = $this->site($server);

        return $this->servers[] = $this->load->serve($this->workspace, $server, $docroot, $page);
    }

    public function summary(ScenarioResult $result): string
    {
        return '';
    }

    public function chart(ScenarioResult $result): ?Chart
    {
        return null;
    }

    /** @return array{string, string} the document root of $server and the text its page shows */
    abstract protected function site(string $server): array;
}

final class FakeScenario extends PhpServerScenario implements OwnLoad
{
    public function name(): string
    {
        return 'fake';
    }

    public function plan(Options $options): array
    {
        return [new Point('fresh', 'fresh', '', '/', 1, 'page ok'), new Point('shared', 'shared', '', '/', 1, 'page ok')];
    }

    public function load(Point $point, Rig $rig): LoadGenerator
    {
        return $this->load;
    }

    public function freshServer(Point $point): bool
    {
        return $point->server === 'fresh';
    }

    protected function site(string $server): array
    {
        return [$this->workspace->path('www'), 'page ok'];
    }
}

/** Three servers (`php -S`), one point each; `wrong` serves a page without the expected text. */
final class TurnsScenario extends PhpServerScenario implements TakesTurns
{
    /** A server whose page logs, on each request, the line bin/petrel's master logs for a crashed worker. */
    public ?string $crashingServer = null;
    /** A server whose page logs, on each request, the line a Petrel worker logs for a request that failed. */
    public ?string $failingServer = null;

    public function name(): string
    {
        return 'turns';
    }

    public function plan(Options $options): array
    {
        return [
            new Point('a', 'a', '', '/', 1, 'page ok'),
            new Point('wrong', 'wrong', '', '/', 1, 'page ok'),
            new Point('b', 'b', '', '/', 1, 'page ok'),
        ];
    }

    protected function site(string $server): array
    {
        $page = $server === 'wrong' ? 'not it' : 'page ok';
        $index = $this->workspace->path("www-{$server}/index.php");
        $logs = $server === $this->crashingServer ? 'error_log("petrel: worker 2 (pid 123) was killed by signal 11; restarting");' : '';
        if ($server === $this->failingServer) {
            $logs .= 'error_log(' . \var_export('petrel: GET / failed: Petrel\\Database\\ConnectionException: Could not connect to MySQL at 127.0.0.1:3306: '
                . 'Too many connections (1040, SQLSTATE HY000)', true) . ');';
        }
        \file_put_contents($index, "<?php {$logs} echo \"{$page}\";");

        return [\dirname($index), $page];
    }
}
