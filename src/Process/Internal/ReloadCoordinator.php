<?php

declare(strict_types=1);

namespace Petrel\Process\Internal;

use Closure;
use Petrel\Process\ProcessException;

/**
 * Graceful reloads: a new generation of every worker starts beside the old one, which is
 * retired (SIGTERM, a graceful stop) only once every new worker is ready. If one of the
 * new workers fails (an error, an exit, not ready within the boot timeout), the new
 * generation is retired instead and the old one keeps serving.
 *
 * Crash restarts go on during a reload (RestartSchedule): a worker of the old generation
 * that dies meanwhile is replaced as usual, so a reload that fails leaves every number
 * served or due for its restart (a restart in its back-off is not lost to the reload). A
 * reload that succeeds retires whatever is not of the new generation, those restarted
 * meanwhile too, and cancels the restarts still pending: the new generation serves every
 * number.
 *
 * @internal
 */
final class ReloadCoordinator
{
    /** @var array{new: list<int>, deadline: float}|null the reload in progress (the new generation's pids) */
    private ?array $current = null;

    /** @param Closure(string): void $log */
    public function __construct(
        private readonly WorkerTable $workers,
        private readonly RestartSchedule $restarts,
        private readonly SupervisionStatus $status,
        private readonly float $bootTimeout,
        private readonly Closure $log,
    ) {
    }

    public function inProgress(): bool
    {
        return $this->current !== null;
    }

    /**
     * Forks the new generation. When that cannot be done (no descriptor left, the process
     * limit reached), the reload fails as one whose new workers cannot boot: the running
     * workers keep serving. (Uncaught, the exception ended the master, and every worker
     * with it.)
     */
    public function begin(): void
    {
        \assert($this->current === null, 'one reload at a time');
        try {
            $new = $this->workers->spawnAll(); // all or none
        } catch (ProcessException $error) {
            ($this->log)("reload failed, keeping the running workers: {$error->getMessage()}");

            return;
        }
        $this->current = ['new' => $new, 'deadline' => \microtime(true) + $this->bootTimeout];
        ($this->log)(\sprintf('reloading: started %d new worker(s)', \count($new)));
    }

    /** Once every new worker is ready, retires the old generation; fails the reload on an error or the deadline. */
    public function progress(): void
    {
        if ($this->current === null) {
            return;
        }
        foreach ($this->current['new'] as $pid) {
            $worker = $this->workers->get($pid);
            if ($worker?->error !== null) {
                $this->fail($worker->error);

                return;
            }
            if ($worker?->state !== WorkerHandle::READY) {
                if (\microtime(true) > $this->current['deadline']) {
                    $this->fail(\sprintf('new workers were not ready after %s s', $this->bootTimeout));
                }

                return;
            }
        }
        $this->status->countRestarts('reload', \count($this->current['new']));
        $this->restarts->cancel();
        foreach ($this->workers->all() as $pid => $worker) {
            if (!\in_array($pid, $this->current['new'], true) && $worker->state !== WorkerHandle::RETIRING) {
                $this->workers->retire($pid);
            }
        }
        $this->current = null;
        ($this->log)('reloaded: old workers finish their requests and exit');
    }

    /** Handles the exit of a worker of the new generation (the reload fails); false for any other worker. */
    public function onExit(WorkerHandle $worker, string $reason): bool
    {
        if ($this->current === null || !\in_array($worker->pid, $this->current['new'], true)) {
            return false;
        }
        $this->fail($worker->error ?? "new {$worker->label()} {$reason} before it was ready");

        return true;
    }

    private function fail(string $reason): void
    {
        \assert($this->current !== null);
        foreach ($this->current['new'] as $pid) {
            $this->workers->retire($pid);
        }
        $this->current = null;
        ($this->log)("reload failed, keeping the running workers: {$reason}");
    }
}
