<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Console;

use Petrel\Console\Internal\HttpWorker;
use Petrel\Console\Internal\TaskWorker;
use Petrel\Console\StartOptions;
use Petrel\Process\WorkerContext;
use PHPUnit\Framework\TestCase;

/**
 * A worker whose memory_limit PHP refuses (below what it already uses) fails its boot,
 * saying so: it used to warn and run on under php.ini's limit (none on the CLI), the
 * runaway-request protection gone. StartOptions refuses such a value already; this is the
 * worker's own check, so the options are built by hand.
 */
final class WorkerMemoryLimitTest extends TestCase
{
    private string $limit;

    protected function setUp(): void
    {
        $this->limit = (string) \ini_get('memory_limit');
    }

    protected function tearDown(): void
    {
        \ini_set('memory_limit', $this->limit);
    }

    public function testAnHttpWorkerFailsItsBoot(): void
    {
        $pipe = self::pipe();
        self::assertSame(78, (new HttpWorker(self::options(), null))(new WorkerContext(1, $pipe)));
        self::assertFailed($pipe);
    }

    public function testATaskWorkerFailsItsBoot(): void
    {
        $pipe = self::pipe();
        self::assertSame(78, (new TaskWorker(self::options(), self::pipe(), null))(new WorkerContext(1, $pipe)));
        self::assertFailed($pipe);
    }

    private static function options(): StartOptions
    {
        // A missing APP: were the limit ignored, the boot would fail on that instead.
        return new StartOptions(...['memoryLimit' => 1024, 'app' => '/nonexistent/app.php'] + \get_object_vars(StartOptions::parse(['app.php'], [], [])));
    }

    /** @return resource */
    private static function pipe(): mixed
    {
        $pipe = \fopen('php://memory', 'w+b');
        self::assertIsResource($pipe);

        return $pipe;
    }

    /** @param resource $pipe */
    private static function assertFailed(mixed $pipe): void
    {
        \rewind($pipe);
        $message = \json_decode((string) \fgets($pipe), true, flags: \JSON_THROW_ON_ERROR);
        self::assertSame('error', $message['type'] ?? null);
        self::assertMatchesRegularExpression('/^cannot set memory_limit to 1K \(--memory-limit\): the worker already uses [\d.]+M$/', $message['message'] ?? '');
    }
}
