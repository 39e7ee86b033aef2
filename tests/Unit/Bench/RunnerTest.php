<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Bench;

use Petrel\Bench\Internal\Progress;
use Petrel\Bench\Load\LoadGenerator;
use Petrel\Bench\Load\LoadResult;
use Petrel\Bench\Options;
use Petrel\Bench\Point;
use Petrel\Bench\Report\Chart;
use Petrel\Bench\Rig;
use Petrel\Bench\Runner;
use Petrel\Bench\ScenarioResult;
use Petrel\Bench\Scenario\OwnLoad;
use Petrel\Bench\Server\Server;
use Petrel\Bench\Workspace;
use PHPUnit\Framework\TestCase;

/**
 * The Runner with a scenario that brings its own load generator: its generator is used,
 * and a point that asks for a fresh server gets a new start before each run and no
 * warm-up, while the others share one start and are warmed up. Servers are `php -S`.
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
}

/** Counts its runs per point (by the URL's port's server) and reports 7 req/s. */
final class FakeLoad implements LoadGenerator
{
    /** @var array<string, int> */
    public array $runs = [];

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

        return [\PHP_BINARY, '-r', 'echo "done";'];
    }

    public function parse(string $output): LoadResult
    {
        return new LoadResult(7.0, 7, 1.0, 2.0, 3.0, 0, 0);
    }
}

final class FakeScenario implements OwnLoad
{
    /** @var array<string, int> */
    public array $starts = [];
    /** @var list<Server> */
    public array $servers = [];
    public readonly FakeLoad $load;

    public function __construct(private readonly Workspace $workspace)
    {
        $this->load = new FakeLoad('fake');
    }

    public function name(): string
    {
        return 'fake';
    }

    public function title(): string
    {
        return 'Fake';
    }

    public function description(): string
    {
        return '';
    }

    public function plan(Options $options): array
    {
        return [new Point('fresh', 'fresh', '', '/', 1, 'page ok'), new Point('shared', 'shared', '', '/', 1, 'page ok')];
    }

    public function start(string $server, Rig $rig): Server
    {
        $this->starts[$server] = ($this->starts[$server] ?? 0) + 1;
        $port = $this->workspace->freePort();
        $process = $this->workspace->spawn("php-s-{$server}", [\PHP_BINARY, '-S', "127.0.0.1:{$port}", '-t', $this->workspace->path('www')]);
        $this->workspace->waitUntilServing("http://127.0.0.1:{$port}/", 'page ok', $process, 20.0);
        $this->load->names[$port] = $server;

        return $this->servers[] = new Server($server, "http://127.0.0.1:{$port}", [$process]);
    }

    public function load(Point $point, Rig $rig): LoadGenerator
    {
        return $this->load;
    }

    public function freshServer(Point $point): bool
    {
        return $point->server === 'fresh';
    }

    public function summary(ScenarioResult $result): string
    {
        return '';
    }

    public function chart(ScenarioResult $result): ?Chart
    {
        return null;
    }
}
