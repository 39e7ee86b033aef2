<?php

declare(strict_types=1);

namespace Petrel\Process\Internal;

/**
 * What the master tells about its supervision: its uptime, the workers it replaced by
 * reason (crash; overrun: a task worker its overrun guard ended; max-requests, max-memory,
 * reload) and each worker's last status, as `petrel status` (the status file, rewritten at
 * most once a second) and /metrics read it.
 *
 * @internal
 */
final class SupervisionStatus
{
    private readonly float $startedAt;
    private float $writtenAt = 0.0;
    /** @var array{crash: int, overrun: int, max-requests: int, max-memory: int, reload: int} workers replaced, by reason */
    private array $restarts = ['crash' => 0, 'overrun' => 0, 'max-requests' => 0, 'max-memory' => 0, 'reload' => 0];

    public function __construct(private readonly WorkerTable $workers, private readonly ?StatusFile $file, private readonly float $gracefulTimeout)
    {
        $this->startedAt = \microtime(true);
    }

    /** @param 'crash'|'overrun'|'max-requests'|'max-memory'|'reload' $reason */
    public function countRestarts(string $reason, int $workers = 1): void
    {
        $this->restarts[$reason] += $workers;
    }

    /**
     * The master's pid and uptime, restarts by reason, and each worker's last status
     * (StatusFile::snapshot()).
     *
     * @return array<string, mixed>
     */
    public function snapshot(): array
    {
        return StatusFile::snapshot($this->workers->all(), $this->startedAt, $this->restarts, $this->gracefulTimeout);
    }

    /** Rewrites the status file, if there is one and it is a second old. */
    public function write(): void
    {
        $now = \microtime(true);
        if ($this->file === null || $now - $this->writtenAt < 1.0) {
            return;
        }
        $this->writtenAt = $now;
        $this->file->write($this->snapshot());
    }

    public function removeFile(): void
    {
        $this->file?->remove();
    }
}
