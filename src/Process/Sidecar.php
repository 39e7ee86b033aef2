<?php

declare(strict_types=1);

namespace Petrel\Process;

use Closure;

/**
 * Something the master runs in its own loop beside the workers (Master's $sidecars): the
 * /metrics endpoint, the --watch file watcher. The master is a plain select() loop (or a
 * poll, past FD_SETSIZE), not a coroutine scheduler: nothing here may block.
 */
interface Sidecar
{
    /** @return list<resource> streams the master's select() watches for reading now */
    public function streams(): array;

    /**
     * $stream (one of streams()) is readable, or may be: a master past select()'s
     * FD_SETSIZE polls, calling this for each stream every 50 ms (Internal\MasterWait); a
     * call that finds nothing to read must do nothing. $status builds the master's status: its pid,
     * uptime, restarts by reason and each worker's last report (what `petrel status` reads).
     *
     * @param resource $stream
     * @param Closure(): array<string, mixed> $status
     */
    public function onReadable(mixed $stream, Closure $status): void;

    /**
     * Called every turn of the master's loop (at least 4 times a second); true asks for a
     * graceful reload.
     *
     * @param Closure(): array<string, mixed> $status as for onReadable()
     */
    public function poll(Closure $status): bool;

    /**
     * A worker exited (reaped). $worker is its row as in the status (number, pid, state,
     * kind) with the last report it sent, its final one included: what /metrics adds to
     * its totals, which a status read a second later no longer has.
     *
     * @param array<string, mixed> $worker
     */
    public function onWorkerExit(array $worker): void;
}
