<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Bench;

use Petrel\Bench\Internal\ChildProcess;
use Petrel\Bench\Workspace;
use Petrel\Tests\Support\RequiresServices;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

/**
 * bench_wait_http of bench/lib/common.sh, which every bench/ script waits for its servers
 * with, against a tiny server: what it takes for up, and what it reports instead.
 */
final class BenchWaitTest extends TestCase
{
    use RequiresServices;

    /**
     * A server on 127.0.0.1:PORT, listening after DELAY ms, that answers the STATUSES in
     * turn (the last one from then on), or accepts connections and never answers (hang).
     * It logs an error with its stack trace, whose frames the failures leave out of the end
     * of its log they show.
     */
    private const SERVER = <<<'PHP'
        <?php
        [, $port, $delay, $statuses] = $argv;
        \usleep((int) $delay * 1000);
        $server = \stream_socket_server("tcp://127.0.0.1:{$port}");
        \fwrite(\STDERR, "the handler broke: no database\n#0 /app/src/Db.php(12): Db->connect()\n#1 {main}\n");
        $statuses = \explode(',', $statuses);
        $held = [];
        while ($client = \stream_socket_accept($server, 3600)) {
            if ($statuses === ['hang']) {
                $held[] = $client;
                continue;
            }
            \fread($client, 8192);
            $status = \count($statuses) > 1 ? \array_shift($statuses) : $statuses[0];
            $body = $status === '500' ? "Internal error\n<p>no database</p>\n" : 'Hello';
            \fwrite($client, "HTTP/1.1 {$status} Status\r\nLocation: /\r\nContent-Length: " . \strlen($body) . "\r\nConnection: close\r\n\r\n{$body}");
            \fclose($client);
        }
        PHP;

    private Workspace $workspace;

    protected function setUp(): void
    {
        if (Workspace::which('curl') === null) {
            self::skipUnlessRequired('curl is not installed (apt-get install curl)');
        }
        $this->workspace = new Workspace();
    }

    protected function tearDown(): void
    {
        $this->workspace->close();
        $this->workspace->removeFiles();
    }

    /** @return iterable<string, array{int, string}> */
    public static function upServers(): iterable
    {
        yield 'a page' => [0, '200'];
        yield 'a redirect' => [0, '302'];
        yield 'listening after a second' => [1000, '200'];
        yield 'an error page once (nginx before its upstream is up)' => [0, '502,200'];
    }

    #[DataProvider('upServers')]
    public function testAServerAnswering2xxOr3xxIsUp(int $delay, string $statuses): void
    {
        [$url, $server] = $this->server($delay, $statuses);

        [$code, $printed] = $this->benchWaitHttp($url, 10, $server);

        self::assertSame([0, ''], [$code, $printed]);
    }

    /**
     * Any answer was up: a server answering 500 to every request (its handler throws, its
     * database is gone) was benchmarked, wrk measuring its error pages. The end of its log
     * says why without the frames of the stack traces (Petrel logs one with every failed
     * request: the last 20 lines were frames).
     */
    public function testAServerAnsweringOnly500FailsAtOnceWithItsStatusPageAndLog(): void
    {
        [$url, $server] = $this->server(0, '500');
        $started = \microtime(true);

        [$code, $printed] = $this->benchWaitHttp($url, 15, $server);

        self::assertSame(1, $code, $printed);
        self::assertSame("bench: {$url} answers HTTP 500 (3 times in a row): Internal error <p>no database</p>; the log of its server ends:\n"
            . "the handler broke: no database\n", $printed);
        self::assertLessThan(10.0, \microtime(true) - $started, 'not the 15 s given');
    }

    /**
     * A server that accepts connections but answers none (hung) was waited for as one not
     * listening yet, the whole time given, and reported as one that "did not come up".
     */
    public function testAServerThatAcceptsButNeverAnswersIsReportedAsSuch(): void
    {
        [$url, $server] = $this->server(0, 'hang');
        $started = \microtime(true);

        [$code, $printed] = $this->benchWaitHttp($url, 2, $server);

        self::assertSame(1, $code, $printed);
        self::assertMatchesRegularExpression('#^bench: ' . \preg_quote($url, '#') . ' accepts connections but does not answer \(nothing in \d+ s\); '
            . "the log of its server ends:\nthe handler broke: no database\n$#", $printed);
        self::assertLessThan(10.0, \microtime(true) - $started);
    }

    /**
     * Runs bench_wait_http URL SECONDS PID LOG in bash: [exit code, what it printed].
     *
     * @return array{int, string}
     */
    private function benchWaitHttp(string $url, int $seconds, ChildProcess $server): array
    {
        $output = $this->workspace->path('bench-wait.out');
        $command = ['bash', '-c', 'source bench/lib/common.sh && bench_wait_http "$@"', 'bash', $url, (string) $seconds, (string) $server->pid(), $server->log];
        $process = \proc_open($command, [0 => ['file', '/dev/null', 'r'], 1 => ['file', $output, 'w'], 2 => ['file', $output, 'a']], $pipes, \dirname(__DIR__, 3));
        self::assertIsResource($process);
        $code = \proc_close($process);

        return [$code, (string) \file_get_contents($output)];
    }

    /**
     * SERVER on a free port, not waited for.
     *
     * @return array{string, ChildProcess}
     */
    private function server(int $delay, string $statuses): array
    {
        $script = $this->workspace->path('server.php');
        \file_put_contents($script, self::SERVER);
        $port = $this->workspace->freePort();

        return ["http://127.0.0.1:{$port}/", $this->workspace->spawn('server', [\PHP_BINARY, $script, (string) $port, (string) $delay, $statuses])];
    }
}
