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

    public function testNothingListeningIsStatusZero(): void
    {
        self::assertSame([0, ''], Workspace::get('http://127.0.0.1:' . $this->workspace->freePort() . '/', 1.0));
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
