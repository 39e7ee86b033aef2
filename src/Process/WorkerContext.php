<?php

declare(strict_types=1);

namespace Petrel\Process;

use Petrel\Process\Internal\TaskSlot;

/**
 * What a worker process knows of its master: its number, and a pipe to report that it is
 * ready, that it failed to boot, that it wants to be replaced, that it is dying of a fatal
 * error, and its status (requests, connections, memory…). One JSON object per line. A task
 * worker also says which task it runs, in its slot in shared memory (taskStarted()).
 */
final class WorkerContext
{
    private readonly float $startedAt;

    /**
     * @param resource $pipe the worker's end of its pipe to the master
     * @param \FFI\CData|null $watchdogCells this worker's slot in the master's blocking
     *        watchdog (`int64_t *`, for Observability\BlockingDetector::start()); null when
     *        the master watches no loop (--block-threshold=0, a task worker, no FFI)
     * @param TaskSlot|null $taskSlot a task worker's slot in the master's task slots; null
     *        for an HTTP worker, or without FFI
     */
    public function __construct(
        public readonly int $number,
        private readonly mixed $pipe,
        public readonly ?\FFI\CData $watchdogCells = null,
        private readonly ?TaskSlot $taskSlot = null,
    ) {
        $this->startedAt = \microtime(true);
    }

    /**
     * Tells the master this worker accepts work (a reload waits for this), with an optional
     * note for the start-up line (e.g. a mode the APP chose).
     */
    public function ready(?string $note = null): void
    {
        $this->send(['type' => 'ready'] + ($note !== null ? ['note' => $note] : []));
    }

    /** Tells the master why this worker could not boot; the caller then exits non-zero. */
    public function fail(string $message): void
    {
        $this->send(['type' => 'error', 'message' => $message]);
    }

    /**
     * Asks the master for a planned replacement (max-requests, max-memory): the worker goes
     * on serving; the master starts a fresh worker and, once that one is ready, sends this
     * one SIGTERM (a graceful stop). Not a crash: no back-off. $reason ends up in the log
     * ("worker 1 {$reason}: replaced by pid N"), e.g. "reached 10000 requests".
     */
    public function retiring(string $reason): void
    {
        $this->send(['type' => 'retiring', 'reason' => $reason]);
    }

    /**
     * Tells the master this ready worker is about to die of a fatal error that says nothing
     * about its health (e.g. one request exceeded memory_limit): it is restarted at once,
     * without the back-off meant for workers that cannot boot. Safe in a shutdown function.
     */
    public function dying(string $reason): void
    {
        $this->send(['type' => 'dying', 'reason' => $reason]);
    }

    /**
     * Calls $onGone once if the master dies (its end of the pipe closes), so an orphaned
     * worker stops instead of serving on forever.
     */
    public function watchMaster(\Petrel\Loop\Driver $driver, \Closure $onGone): void
    {
        $pipe = $this->pipe;
        $id = $driver->onReadable($pipe, static function (int $id) use ($driver, $pipe, $onGone): void {
            $data = @\fread($pipe, 1024);
            if ($data === '' || $data === false) {
                $driver->cancel($id);
                $onGone();
            }
        });
        $driver->unreference($id);
    }

    /**
     * A task worker, as a task starts: writes it in this process's task slot, with when its
     * overrun guard's kill timer fires (microtime; null: none). A few writes to memory, no
     * system call: it is done for every task, where the "busy" status is sent once per busy
     * spell. The master reads the slot when it reaps this process, to name the task it died
     * running and to tell its kill timer's SIGKILL from a crash. Nothing without a slot.
     */
    public function taskStarted(string $task, ?float $killAt): void
    {
        $this->taskSlot?->start($task, \microtime(true), $killAt);
    }

    /** A task worker, as the task ends: its slot says idle. */
    public function taskEnded(): void
    {
        $this->taskSlot?->end();
    }

    /** @param array<string, mixed> $status shown by `petrel status` (and /metrics: its "metrics" key) */
    public function reportStatus(array $status): void
    {
        $this->send(['type' => 'status', 'status' => $status + [
            'memory' => \memory_get_usage(true),
            'uptime' => \round(\microtime(true) - $this->startedAt, 1),
        ]]);
    }

    /** @param array<string, mixed> $message */
    private function send(array $message): void
    {
        @\fwrite($this->pipe, \json_encode($message, \JSON_INVALID_UTF8_SUBSTITUTE | \JSON_THROW_ON_ERROR) . "\n");
    }
}
