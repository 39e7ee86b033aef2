<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Bench;

use Petrel\Bench\Internal\ProcessSampler;
use PHPUnit\Framework\TestCase;

/** Against a fake /proc: a root, its child and grandchild, and an unrelated process. */
final class ProcessSamplerTest extends TestCase
{
    private string $proc = '';
    private float $now = 100.0;

    protected function setUp(): void
    {
        $this->proc = \sys_get_temp_dir() . '/petrel-fake-proc-' . \getmypid() . '-' . \bin2hex(\random_bytes(3));
        \mkdir($this->proc);
    }

    protected function tearDown(): void
    {
        foreach (\glob("{$this->proc}/*/stat") ?: [] as $file) {
            \unlink($file);
            \rmdir(\dirname($file));
        }
        \rmdir($this->proc);
    }

    public function testSumsCpuAndMemoryOfTheTreeUnderTheRoots(): void
    {
        $this->process(10, 1, 'php', 100, 50, 1000);
        $this->process(11, 10, 'php worker', 200, 20, 2000);
        $this->process(12, 11, 'weird) (name', 0, 0, 500);
        $this->process(99, 1, 'other', 0, 0, 99999);
        $sampler = new ProcessSampler([10], $this->proc, 100, 4096, fn (): float => $this->now);

        $sampler->start();
        $this->now += 2.0;
        $this->process(10, 1, 'php', 110, 50, 1000);        // +10 ticks
        $this->process(11, 10, 'php worker', 300, 40, 3000); // +120 ticks, more memory
        $this->process(12, 11, 'weird) (name', 50, 20, 500); // +70 ticks
        $this->process(99, 1, 'other', 900, 900, 99999);     // not ours
        $sampler->sample();

        // 200 ticks at 100 per second over 2 s = 1 core-second per second.
        self::assertEqualsWithDelta(100.0, $sampler->cpuPercent(), 1e-9);
        self::assertSame((1000 + 3000 + 500) * 4096, $sampler->peakRssBytes());
    }

    public function testAProcessForkedDuringTheRunCountsFromWhenItWasFirstSeen(): void
    {
        $this->process(10, 1, 'php', 100, 0, 10);
        $sampler = new ProcessSampler([10], $this->proc, 100, 4096, fn (): float => $this->now);
        $sampler->start();

        $this->now += 1.0;
        $this->process(13, 10, 'php new worker', 5, 5, 10);
        $sampler->sample();
        $this->now += 1.0;
        $this->process(13, 10, 'php new worker', 55, 5, 10);
        \unlink("{$this->proc}/10/stat"); // the root exited meanwhile: its last reading stays
        \rmdir("{$this->proc}/10");
        $sampler->sample();

        self::assertEqualsWithDelta(25.0, $sampler->cpuPercent(), 1e-9); // 50 ticks over 2 s
        self::assertSame(20 * 4096, $sampler->peakRssBytes());
    }

    public function testNothingToSample(): void
    {
        $sampler = new ProcessSampler([4242], $this->proc, 100, 4096, fn (): float => $this->now);
        $sampler->start();
        $this->now += 1.0;
        $sampler->sample();

        self::assertSame(0.0, $sampler->cpuPercent());
        self::assertSame(0, $sampler->peakRssBytes());
    }

    public function testReadsThisMachinesRealProc(): void
    {
        if (!\is_file('/proc/self/stat')) {
            self::markTestSkipped('no /proc');
        }
        $sampler = new ProcessSampler([(int) \getmypid()]);
        $sampler->start();
        $end = \microtime(true) + 0.2;
        while (\microtime(true) < $end) {
            \hash('sha256', \str_repeat('x', 10000)); // burn some CPU
        }
        $sampler->sample();

        self::assertGreaterThan(0, $sampler->peakRssBytes());
        self::assertGreaterThan(10.0, $sampler->cpuPercent());
    }

    private function process(int $pid, int $ppid, string $comm, int $utime, int $stime, int $rssPages): void
    {
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
        // utime stime cutime cstime priority nice threads itrealvalue starttime vsize rss …
        $fields = ['S', $ppid, $pid, $pid, 0, -1, 0, 0, 0, 0, 0, $utime, $stime, 0, 0, 20, 0, 1, 0, 1000, 12345678, $rssPages, 0];
        @\mkdir("{$this->proc}/{$pid}");
        \file_put_contents("{$this->proc}/{$pid}/stat", "{$pid} ({$comm}) " . \implode(' ', $fields) . "\n");
    }
}
