<?php

declare(strict_types=1);

namespace Petrel\Tests\Integration\Symfony;

use Petrel\Tests\Unit\Symfony\SkipsWithoutSymfony;
use PHPUnit\Framework\TestCase;

/**
 * An echo left in a Symfony controller, in a php-cli process as a worker is one: it must
 * not mark the headers as sent for the rest of the process, or every later session_start()
 * fails. Runs fixtures/stray-output.php (PHPUnit's own output has marked them in this one).
 */
final class StrayOutputTest extends TestCase
{
    use SkipsWithoutSymfony;

    private string $sessionDir = '';

    protected function setUp(): void
    {
        self::requireSymfony();
        $this->sessionDir = \sys_get_temp_dir() . '/petrel-sf-sessions-' . \getmypid() . '-' . \bin2hex(\random_bytes(4));
        \mkdir($this->sessionDir);
    }

    protected function tearDown(): void
    {
        if ($this->sessionDir !== '') {
            \exec('rm -rf ' . \escapeshellarg($this->sessionDir));
        }
    }

    public function testAnEchoGoesToStdoutAndLaterRequestsCanStillStartASession(): void
    {
        [$stdout, $stderr, $exit] = $this->runFixture();

        self::assertSame(0, $exit, $stderr);
        self::assertSame('left in a controller', $stdout, 'the worker\'s stdout still gets it');
        $result = \json_decode($stderr, true, flags: \JSON_THROW_ON_ERROR);
        self::assertIsArray($result);
        self::assertSame([[200, 'echoed'], [200, 'session started']], $result['answers']);
        self::assertFalse($result['headersSent']);
    }

    /** @return array{string, string, int} stdout, stderr, exit code */
    private function runFixture(): array
    {
        $command = [\PHP_BINARY, '-d', 'display_errors=stderr', __DIR__ . '/fixtures/stray-output.php'];
        $process = \proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, ['SESSION_DIR' => $this->sessionDir] + \getenv());
        self::assertIsResource($process);
        $stdout = (string) \stream_get_contents($pipes[1]);
        $stderr = (string) \stream_get_contents($pipes[2]);
        \fclose($pipes[1]);
        \fclose($pipes[2]);

        return [$stdout, $stderr, \proc_close($process)];
    }
}
