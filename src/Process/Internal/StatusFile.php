<?php

declare(strict_types=1);

namespace Petrel\Process\Internal;

/**
 * The JSON file `petrel status` reads: the master's pid and uptime and, per worker, its
 * kind (http, task), number within its kind, state (starting, ready, recycling: ready but
 * waiting for its replacement, retiring: draining) and the status it last reported. Written
 * atomically (temp file + rename).
 *
 * @internal
 */
final class StatusFile
{
    public function __construct(private readonly string $path)
    {
    }

    /**
     * The status as `petrel status` and /metrics read it.
     *
     * @param array<int, WorkerHandle> $workers by pid
     * @param array<string, int> $restarts workers replaced, by reason
     * @param float $gracefulTimeout how long a stop may drain (`petrel stop` waits that long)
     * @return array{master: int, uptime: float, updated: float, graceful_timeout: float, restarts: array<string, int>, workers: list<array<string, mixed>>}
     */
    public static function snapshot(array $workers, float $startedAt, array $restarts, float $gracefulTimeout): array
    {
        $now = \microtime(true);
        $rows = [];
        foreach ($workers as $pid => $worker) {
            $rows[] = self::row($pid, $worker);
        }
        \usort($rows, static fn (array $a, array $b): int => [$a['kind'], $a['number'], $a['pid']] <=> [$b['kind'], $b['number'], $b['pid']]);

        return ['master' => (int) \getmypid(), 'uptime' => \round($now - $startedAt, 1), 'updated' => $now, 'graceful_timeout' => $gracefulTimeout, 'restarts' => $restarts, 'workers' => $rows];
    }

    /**
     * One worker's row of the snapshot: number, pid, state, kind, then its last report.
     *
     * @return array<string, mixed>
     */
    public static function row(int $pid, WorkerHandle $worker): array
    {
        // A ready worker that asked to be replaced still serves until its replacement is ready.
        $state = $worker->state === WorkerHandle::READY && $worker->retiringBecause !== null ? 'recycling' : $worker->state;

        return ['number' => $worker->shownNumber, 'pid' => $pid, 'state' => $state, 'kind' => $worker->kind] + $worker->status;
    }

    /** @param array<string, mixed> $status from snapshot() */
    public function write(array $status): void
    {
        $temporary = "{$this->path}.tmp";
        if (@\file_put_contents($temporary, \json_encode($status, \JSON_PRETTY_PRINT | \JSON_THROW_ON_ERROR)) !== false) {
            @\rename($temporary, $this->path);
        }
    }

    public function remove(): void
    {
        @\unlink($this->path);
    }
}
