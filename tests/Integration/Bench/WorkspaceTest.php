<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Bench;

use Petrel\Bench\BenchException;
use Petrel\Bench\Internal\ChildProcess;
use Petrel\Bench\Server\Launcher;
use Petrel\Bench\Workspace;
use PHPUnit\Framework\TestCase;

/**
 * The workspace against real processes: the page checks that every point starts with.
 */
final class WorkspaceTest extends TestCase
{
    private Workspace $workspace;

    protected function setUp(): void
    {
        $this->workspace = new Workspace();
    }

    protected function tearDown(): void
    {
        $this->workspace->close();
        $this->workspace->removeFiles();
    }

    /**
     * bench/apps/bare-hello.php keeps every connection open, `Connection: close` or not: its
     * page check used to wait out the timeout twice (~30 s of each `bench hello --quick`).
     */
    public function testAPageIsReadToItsContentLengthFromAServerThatKeepsTheConnection(): void
    {
        $started = \microtime(true);
        $server = (new Launcher($this->workspace, \dirname(__DIR__, 3)))->barePhp('bare', 1);
        $starting = \microtime(true) - $started;

        $started = \microtime(true);
        [$status, $body] = Workspace::get($server->url . '/', 5.0);
        $getting = \microtime(true) - $started;

        self::assertSame([200, 'Hello, World!'], [$status, $body]);
        self::assertLessThan(2.0, $starting, 'waiting until it serves');
        self::assertLessThan(2.0, $getting, 'the page check');
    }

    /**
     * A server that is up but answers 500 to every request (its handler throws) was waited
     * for as if still starting: the run was declared failed after the whole minute. The end
     * of its log says why without the stack trace's frames, which filled it (Petrel logs a
     * trace with every failed request).
     */
    public function testAServerAnsweringOnly500IsGivenUpOnAtOnceWithItsStatusAndLog(): void
    {
        [$url, $process] = $this->phpServer(<<<'PHP'
            <?php
            $frames = \array_map(static fn (int $i): string => "#{$i} /app/src/Layer.php({$i}): Layer->call()", \range(0, 29));
            \error_log("the handler broke: no database\n  at /app/src/Db.php:12\n" . \implode("\n", $frames) . "\n#30 {main}");
            \http_response_code(500);
            echo 'Internal error';
            PHP);
        $started = \microtime(true);
        try {
            $this->workspace->waitUntilServing($url, 'hello', $process, 15.0);
            self::fail('a server that answers 500 is not serving');
        } catch (BenchException $error) {
            self::assertLessThan(3.0, \microtime(true) - $started, $error->getMessage());
            self::assertStringContainsString("php-s at {$url} answers HTTP 500 instead of \"hello\" (3 times in a row): Internal error; its log ends:\n", $error->getMessage());
            self::assertStringContainsString("the handler broke: no database\n  at /app/src/Db.php:12\n", $error->getMessage());
            self::assertStringNotContainsString('Layer->call()', $error->getMessage());
        }
    }

    /** An answer that is not yet the page (a proxy whose upstream is still starting) is waited past. */
    public function testAServerThatAnswersWronglyOnceIsStillWaitedFor(): void
    {
        [$url, $process] = $this->phpServer(<<<'PHP'
            <?php
            if (!\file_exists(__DIR__ . '/up')) {
                \touch(__DIR__ . '/up');
                \http_response_code(502);
                exit;
            }
            echo 'hello';
            PHP);

        $this->workspace->waitUntilServing($url, 'hello', $process, 15.0);

        self::assertSame([200, 'hello'], Workspace::get($url));
    }

    /**
     * A server that accepts connections but answers none (hung) was waited for as one
     * still starting, its requests timing out one after the other for the whole minute.
     */
    public function testAServerThatAcceptsButNeverAnswersIsGivenUpOnAfterAFewTries(): void
    {
        [$url, $process] = $this->rawServer(0, '$held = []; while (true) { $held[] = \stream_socket_accept($server, 3600); }');
        $started = \microtime(true);
        try {
            $this->workspace->waitUntilServing($url, 'hello', $process, 15.0, 1.0);
            self::fail('a server that does not answer is not serving');
        } catch (BenchException $error) {
            self::assertLessThan(10.0, \microtime(true) - $started, $error->getMessage()); // not the 15 s given
            self::assertSame("raw at {$url} accepts connections but does not answer within 1s (3 times in a row); its log ends:\nlistening", $error->getMessage());
        }
    }

    /** Nothing listening yet is refused at once, however often: a server still starting, not a hung one. */
    public function testAServerThatListensLateIsWaitedFor(): void
    {
        [$url, $process] = $this->rawServer(1_500_000, 'while ($client = \stream_socket_accept($server, 3600)) {
            \fread($client, 8192);
            \fwrite($client, "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello");
            \fclose($client);
        }');

        $this->workspace->waitUntilServing($url, 'hello', $process, 15.0, 0.5);

        self::assertSame([200, 'hello'], Workspace::get($url));
    }

    public function testNothingListeningIsStatusZero(): void
    {
        self::assertSame([0, ''], Workspace::get('http://127.0.0.1:' . $this->workspace->freePort() . '/', 1.0));
    }

    /**
     * A PHP script listening on a free port after $delay µs, then running $serve with $server
     * (its listening socket); not waited for.
     *
     * @return array{string, ChildProcess}
     */
    private function rawServer(int $delay, string $serve): array
    {
        $port = $this->workspace->freePort();
        $script = "<?php \\usleep({$delay}); \$server = \\stream_socket_server('tcp://127.0.0.1:{$port}'); echo \"listening\\n\"; {$serve}";
        \file_put_contents($this->workspace->path('raw.php'), $script);

        return ["http://127.0.0.1:{$port}/", $this->workspace->spawn('raw', [\PHP_BINARY, $this->workspace->path('raw.php')])];
    }

    /**
     * `php -S` serving $index as its index.php, up (answering, whatever it answers).
     *
     * @return array{string, ChildProcess}
     */
    private function phpServer(string $index): array
    {
        $docroot = $this->workspace->path('docroot/index.php');
        \file_put_contents($docroot, $index);
        $port = $this->workspace->freePort();
        $process = $this->workspace->spawn('php-s', [\PHP_BINARY, '-S', "127.0.0.1:{$port}", '-t', \dirname($docroot)]);
        $deadline = \microtime(true) + 10;
        while (($socket = @\stream_socket_client("tcp://127.0.0.1:{$port}")) === false && \microtime(true) < $deadline) {
            \usleep(20_000);
        }
        self::assertNotFalse($socket, "php -S did not listen:\n" . $process->logTail());
        \fclose($socket);

        return ["http://127.0.0.1:{$port}/", $process];
    }
}
