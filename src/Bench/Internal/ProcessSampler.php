<?php

declare(strict_types=1);

namespace Petrel\Bench\Internal;

/**
 * CPU and memory of a server's processes, read from /proc while the load runs.
 *
 * A server is a set of root pids (nginx master, php-fpm master, petrel master…) and
 * every descendant of them, found again at each sample so that workers forked during
 * the run count too. CPU% is the CPU time those processes used over the wall time
 * (100 = one core busy); peak RSS is the largest sum of their resident sets seen at one
 * sample (shared pages count once per process, as `ps` would add them up).
 */
final class ProcessSampler
{
    /** @var array<int, int> pid => CPU ticks at the first sample that saw it */
    private array $firstTicks = [];
    /** @var array<int, int> pid => CPU ticks at the latest sample */
    private array $lastTicks = [];
    private int $peakRss = 0;
    private int $firstRss = 0;
    private float $startedAt = 0.0;
    private float $sampledAt = 0.0;

    /**
     * @param list<int> $roots
     * @param (\Closure(): float)|null $clock seconds, monotonic (default hrtime)
     */
    public function __construct(
        private readonly array $roots,
        private readonly string $proc = '/proc',
        private readonly int $ticksPerSecond = 100,
        private readonly int $pageSize = 4096,
        private readonly ?\Closure $clock = null,
    ) {
    }

    public function start(): void
    {
        $this->firstTicks = $this->lastTicks = [];
        $this->peakRss = 0;
        $this->startedAt = $this->now();
        $this->sample();
        $this->firstRss = $this->peakRss;
    }

    public function sample(): void
    {
        $rss = 0;
        foreach ($this->processes() as $pid => $stat) {
            $this->firstTicks[$pid] ??= $stat['ticks'];
            $this->lastTicks[$pid] = $stat['ticks'];
            $rss += $stat['rss'];
        }
        $this->peakRss = \max($this->peakRss, $rss);
        $this->sampledAt = $this->now();
    }

    /** CPU used by the processes between start() and the last sample(), in % of one core. */
    public function cpuPercent(): float
    {
        $elapsed = $this->sampledAt - $this->startedAt;
        if ($elapsed <= 0.0) {
            return 0.0;
        }
        $ticks = 0;
        foreach ($this->lastTicks as $pid => $last) {
            $ticks += $last - $this->firstTicks[$pid];
        }

        return 100.0 * $ticks / $this->ticksPerSecond / $elapsed;
    }

    public function peakRssBytes(): int
    {
        return $this->peakRss;
    }

    /** The summed RSS at start(), before the load: peak minus this is what the load cost. */
    public function startRssBytes(): int
    {
        return $this->firstRss;
    }

    private function now(): float
    {
        return $this->clock !== null ? ($this->clock)() : \hrtime(true) / 1e9;
    }

    /**
     * The roots, the processes seen at earlier samples, and their descendants: those alive now.
     *
     * @return array<int, array{ticks: int, rss: int}>
     */
    private function processes(): array
    {
        $all = [];
        foreach (\glob("{$this->proc}/[0-9]*", \GLOB_ONLYDIR) ?: [] as $dir) {
            $stat = $this->readStat($dir);
            if ($stat !== null) {
                $all[(int) \basename($dir)] = $stat;
            }
        }
        $children = [];
        foreach ($all as $pid => $stat) {
            $children[$stat['ppid']][] = $pid;
        }
        $found = [];
        // Processes seen before stay tracked even if their parent exits and init adopts them.
        $tracked = [...$this->roots, ...\array_keys($this->lastTicks)];
        $queue = \array_values(\array_filter($tracked, static fn (int $pid): bool => isset($all[$pid])));
        while ($queue !== []) {
            $pid = \array_pop($queue);
            if (isset($found[$pid])) {
                continue;
            }
            $found[$pid] = ['ticks' => $all[$pid]['ticks'], 'rss' => $all[$pid]['rss']];
            \array_push($queue, ...($children[$pid] ?? []));
        }

        return $found;
    }

    /** @return array{ppid: int, ticks: int, rss: int}|null */
    private function readStat(string $dir): ?array
    {
        $stat = @\file_get_contents("{$dir}/stat");
        if ($stat === false) {
            return null; // exited between glob() and here
        }
        // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after
        // the last ')'. Fields from there: state=0 ppid=1 … utime=11 stime=12 … rss=21 (pages).
        $fields = \explode(' ', \substr($stat, \strrpos($stat, ')') + 2));
        if (\count($fields) < 22) {
            return null;
        }

        return ['ppid' => (int) $fields[1], 'ticks' => (int) $fields[11] + (int) $fields[12], 'rss' => (int) $fields[21] * $this->pageSize];
    }
}
