<?php

declare(strict_types=1);

namespace Petrel\Process;

/**
 * What a worker process knows of its master: its number, and a pipe to report that it is
 * ready, that it failed to boot, and its status (requests, connections, memory…).
 */
final class WorkerContext
{
    private readonly float $startedAt;

    /** @param resource $pipe the worker's end of its pipe to the master */
    public function __construct(
        public readonly int $number,
        private readonly mixed $pipe,
    ) {
        $this->startedAt = \microtime(true);
    }

    /** Tells the master this worker accepts work (a reload waits for this). */
    public function ready(): void
    {
        $this->send(['type' => 'ready']);
    }

    /** Tells the master why this worker could not boot; the caller then exits non-zero. */
    public function fail(string $message): void
    {
        $this->send(['type' => 'error', 'message' => $message]);
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

    /** @param array<string, int|float|string> $status shown by `petrel status` */
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
        @\fwrite($this->pipe, \json_encode($message, \JSON_THROW_ON_ERROR) . "\n");
    }
}
