<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Bench;

use Petrel\Bench\BenchException;
use Petrel\Bench\Internal\Progress;
use Petrel\Bench\Load\Wrk;
use Petrel\Bench\Options;
use Petrel\Bench\Point;
use Petrel\Bench\Report\Chart;
use Petrel\Bench\Rig;
use Petrel\Bench\Runner;
use Petrel\Bench\ScenarioResult;
use Petrel\Bench\Scenario\Scenario;
use Petrel\Bench\Server\Server;
use Petrel\Bench\SkipException;
use Petrel\Bench\Workspace;
use Petrel\Tests\Support\RequiresServices;
use PHPUnit\Framework\TestCase;

/**
 * The Runner against `php -S` servers and wrk: a point whose server is missing a tool
 * is skipped with what to install, one whose server fails or serves the wrong page is
 * recorded as failed, and the others are still measured.
 */
final class RunnerTest extends TestCase
{
    use RequiresServices;

    private Workspace $workspace;
    private string $docroot = '';
    /** @var array<string, int> server => how many times the scenario started it */
    private array $starts = [];

    protected function setUp(): void
    {
        if (Workspace::which('wrk') === null) {
            self::skipUnlessRequired('wrk is not installed (apt-get install wrk)');
        }
        $this->workspace = new Workspace();
        $this->docroot = \dirname($this->workspace->path('www/index.php'));
        \file_put_contents("{$this->docroot}/index.php", '<?php echo $_GET["say"] ?? "hello";');
    }

    protected function tearDown(): void
    {
        if (isset($this->workspace)) {
            $this->workspace->close();
            $this->workspace->removeFiles();
        }
    }

    public function testSkipsWhatCannotRunAndMeasuresTheRest(): void
    {
        $rig = new Rig($this->workspace, \dirname(__DIR__, 3), new Options(duration: 1, repeat: 2, warmup: 0), []);
        $progress = \fopen('php://memory', 'w+');
        self::assertIsResource($progress);
        $scenario = $this->scenario();
        $points = $scenario->plan($rig->options);
        $runner = new Runner($rig, new Wrk(1), new Progress($progress, \count($points), 1.0), \dirname($this->workspace->path('raw/x')));

        $result = $runner->run($scenario, $points);

        self::assertCount(5, $result->points);
        [$missing, $broken, $ok, $okAgain, $wrong] = $result->points;
        self::assertSame('skipped: frobd is not installed (Debian: apt-get install frob)', $missing->error);
        self::assertSame([], $missing->runs);
        self::assertSame('failed to start: it broke', $broken->error);
        self::assertNull($ok->error);
        self::assertCount(2, $ok->runs);
        self::assertGreaterThan(0, $ok->median('rps'));
        self::assertGreaterThan(0, $ok->median('requests'));
        self::assertGreaterThan(0, $ok->median('peak_rss_mb'));
        self::assertGreaterThan(0, $ok->median('cpu_percent'));
        self::assertCount(2, $okAgain->runs, 'the second point on the same server');
        self::assertStringContainsString('answered HTTP 200 without "hello": nope', (string) $wrong->error);
        self::assertSame(['missing — skipped: frobd is not installed (Debian: apt-get install frob)', 'broken — failed to start: it broke'], $result->notes);
        self::assertSame(1, $this->starts['ok'], 'consecutive points on one server share one start');
        \rewind($progress);
        self::assertStringContainsString('[3/5] test · ok · run 1/2', (string) \stream_get_contents($progress));
    }

    private function scenario(): Scenario
    {
        return new class ($this->docroot, $this->starts) implements Scenario {
            /** @param array<string, int> $starts */
            public function __construct(private readonly string $docroot, private array &$starts)
            {
            }

            public function name(): string
            {
                return 'test';
            }

            public function title(): string
            {
                return 'Test';
            }

            public function description(): string
            {
                return '';
            }

            public function plan(Options $options): array
            {
                return [
                    new Point('missing', 'missing', '', '/', 4, 'hello'),
                    new Point('broken', 'broken', '', '/', 4, 'hello'),
                    new Point('ok', 'ok', '', '/', 4, 'hello'),
                    new Point('ok', 'ok again', '', '/?say=hello+again', 4, 'hello again'),
                    new Point('wrong', 'wrong', '', '/?say=nope', 4, 'hello'),
                ];
            }

            public function start(string $server, Rig $rig): Server
            {
                $this->starts[$server] = ($this->starts[$server] ?? 0) + 1;
                if ($server === 'missing') {
                    throw SkipException::missing('frobd', 'frob');
                }
                if ($server === 'broken') {
                    throw new BenchException('it broke');
                }
                $port = $rig->workspace->freePort();
                $process = $rig->workspace->spawn("php-S-{$server}", [\PHP_BINARY, '-S', "127.0.0.1:{$port}", '-t', $this->docroot]);
                $rig->workspace->waitUntilServing("http://127.0.0.1:{$port}/", 'hello', $process);

                return new Server($server, "http://127.0.0.1:{$port}", [$process]);
            }

            public function summary(ScenarioResult $result): string
            {
                return '';
            }

            public function chart(ScenarioResult $result): ?Chart
            {
                return null;
            }
        };
    }
}
