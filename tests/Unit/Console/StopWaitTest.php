<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Console;

use Petrel\Console\StatusCommand;
use PHPUnit\Framework\Attributes\CoversClass;
use PHPUnit\Framework\TestCase;

/**
 * How long `petrel stop` waits for the master: its --graceful-timeout and a margin, read
 * from the status file beside the pid file, never less than two minutes. A fixed two
 * minutes made `stop && start` fail while a server with a longer drain stopped as it should.
 */
#[CoversClass(StatusCommand::class)]
final class StopWaitTest extends TestCase
{
    private string $pidFile = '';

    protected function setUp(): void
    {
        $this->pidFile = \sys_get_temp_dir() . '/petrel-stop-wait-' . \bin2hex(\random_bytes(4)) . '.pid';
    }

    protected function tearDown(): void
    {
        @\unlink(StatusCommand::statusFileFor($this->pidFile));
    }

    private function writeStatus(mixed $status): void
    {
        \file_put_contents(StatusCommand::statusFileFor($this->pidFile), \is_string($status) ? $status : \json_encode($status));
    }

    public function testALongGracefulTimeoutIsWaitedFor(): void
    {
        $this->writeStatus(['master' => 4242, 'graceful_timeout' => 300, 'workers' => []]);
        self::assertSame(330.0, StatusCommand::stopWait($this->pidFile, 4242));
        $this->writeStatus(['master' => 4242, 'graceful_timeout' => 150.5, 'workers' => []]);
        self::assertSame(180.5, StatusCommand::stopWait($this->pidFile, 4242));
    }

    public function testTwoMinutesAtLeastAndWhenTheStatusSaysNothing(): void
    {
        self::assertSame(StatusCommand::STOP_WAIT, StatusCommand::stopWait($this->pidFile, 4242), 'no status file');
        $this->writeStatus(['master' => 4242, 'graceful_timeout' => 30, 'workers' => []]);
        self::assertSame(120.0, StatusCommand::stopWait($this->pidFile, 4242), 'a short drain');
        $this->writeStatus(['master' => 777, 'graceful_timeout' => 3000, 'workers' => []]);
        self::assertSame(120.0, StatusCommand::stopWait($this->pidFile, 4242), "another master's status");
        $this->writeStatus('{"master": 4242, "graceful_timeout": "300"');
        self::assertSame(120.0, StatusCommand::stopWait($this->pidFile, 4242), 'a file cut short');
    }
}
