<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Bench;

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

    public function testNothingListeningIsStatusZero(): void
    {
        self::assertSame([0, ''], Workspace::get('http://127.0.0.1:' . $this->workspace->freePort() . '/', 1.0));
    }
}
