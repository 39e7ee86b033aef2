<?php

declare(strict_types=1);

namespace Petrel\Process\Internal;

use Closure;
use Petrel\Process\ProcessException;

/**
 * Restarts of workers that died unplanned (a "crash": whatever exit the master did not ask
 * for), and the back-off shared with failed recycles.
 *
 * A worker that was ready and lived 1 s (or said it is dying of a fatal error while
 * healthy) is restarted at once; one that dies at boot waits backoff() of its consecutive
 * deaths at boot: 0.1 s doubling up to 10 s.
 *
 * A restarted worker has the boot timeout the first start has: one not ready by then (its
 * APP waits on a service that never answers) is killed, which counts as a death at boot
 * and is retried after the back-off. Without it, the number stayed "starting" for ever,
 * served by no one.
 *
 * A task worker its overrun guard ended (Task\TaskServer: exit code 124; or a SIGKILL when
 * the guard's kill timer was due for the task it was running) is no crash: the task ran
 * past its caller's deadline, the worker was healthy. It is restarted at once, counted as
 * an "overrun". One killed by a signal is logged with the task it was running ("while
 * running" it when its kill timer did it) and when that task started, both from its task
 * slot (TaskSlots, read at the reap: exact). Without one (no FFI) the master knows only
 * the task and kill time of the worker's last status: "last reported running" (a busy
 * status is sent once per busy spell: another task may have started since, and the kill
 * timer's SIGKILL of a later task is taken for a crash).
 *
 * @internal
 */
final class RestartSchedule
{
    private const DELAY_MAX = 10.0;
    /** Task\TaskServer::EXIT_OVERRUN (as timeout(1)); Process does not depend on Task. */
    private const EXIT_OVERRUN = 124;
    /** How long after its kill time a task worker's SIGKILL is taken for its kill timer's. */
    private const KILL_TIMER_SLACK = 2.0;

    /** @var array<int, float> worker number => when to start it again */
    private array $due = [];
    /** @var array<int, int> worker number => consecutive deaths at boot */
    private array $bootFailures = [];
    /** @var array<int, float> pid of a restarted worker not yet ready => its boot deadline */
    private array $booting = [];

    /** @param Closure(string): void $log */
    public function __construct(
        private readonly WorkerTable $workers,
        private readonly SupervisionStatus $status,
        private readonly float $bootTimeout,
        private readonly Closure $log,
    ) {
    }

    /** The wait before attempt $failures + 1: 0.1 s, doubling, 10 s at most. */
    public static function backoff(int $failures): float
    {
        return \min(self::DELAY_MAX, 0.1 * 2 ** ($failures - 1));
    }

    /** $worker exited unplanned: counts and logs it, and schedules its restart. */
    public function afterCrash(WorkerHandle $worker, string $reason): void
    {
        $now = \microtime(true);
        $killTimer = self::killedByItsKillTimer($worker, $reason, $now);
        $overrun = $killTimer || ($worker->kind === WorkerHandle::TASK && $reason === 'exited with code ' . self::EXIT_OVERRUN);
        $lived = $now - $worker->startedAt;
        if ($overrun || ($worker->state === WorkerHandle::READY && ($lived >= 1.0 || $worker->dyingBecause !== null))) {
            $this->bootFailures[$worker->number] = 0;
            $delay = 0.0;
        } else {
            $failures = $this->bootFailures[$worker->number] = ($this->bootFailures[$worker->number] ?? 0) + 1;
            $delay = self::backoff($failures);
        }
        $normal = $reason === 'exited with code 0';
        $this->status->countRestarts($overrun ? 'overrun' : 'crash');
        ($this->log)(\sprintf(
            '%s (pid %d) %s%s; %s',
            $worker->label(),
            $worker->pid,
            $reason,
            self::why($worker, $killTimer, $now),
            $delay > 0 ? \sprintf('restarting in %.1f s', $delay) : ($normal ? 'starting a fresh one' : 'restarting'),
        ));
        $this->schedule($worker->number, $delay);
    }

    /** Starts a worker for $number in $delay seconds. */
    public function schedule(int $number, float $delay): void
    {
        $this->due[$number] = \microtime(true) + $delay;
    }

    /**
     * Forks the workers whose restart is due; kills those restarted that are not ready in
     * time. One that cannot be forked (no descriptor left, the process limit reached) is
     * retried after the back-off, as one that cannot boot. (Uncaught, the exception ended
     * the master, and every worker that was serving with it.)
     */
    public function spawnDue(): void
    {
        $now = \microtime(true);
        foreach ($this->due as $number => $at) {
            if ($at <= $now) {
                unset($this->due[$number]);
                try {
                    $this->booting[$this->workers->spawn($number)] = $now + $this->bootTimeout;
                } catch (ProcessException $error) {
                    $this->afterForkFailure($number, $error);
                }
            }
        }
        foreach ($this->booting as $pid => $deadline) {
            $worker = $this->workers->get($pid);
            if ($worker === null || $worker->state !== WorkerHandle::STARTING) {
                unset($this->booting[$pid]); // ready, gone, or retired by a reload
            } elseif ($now > $deadline) {
                unset($this->booting[$pid]);
                $worker->error ??= \sprintf('not ready after %s s: killed', $this->bootTimeout);
                \posix_kill($pid, \SIGKILL); // its exit is a death at boot: afterCrash()
            }
        }
    }

    /** Forgets the pending restarts (a stop, or a reload whose new generation serves every number). */
    public function cancel(): void
    {
        $this->due = [];
        $this->booting = [];
    }

    /**
     * A task worker SIGKILLed by its overrun guard's kill timer (a task stuck in a C call past
     * its deadline): it was running a task whose kill time has come, by its task slot (or,
     * without one, by its last status). Any other SIGKILL (the OOM killer, kill -9, a task
     * killing its own process) is a crash.
     */
    private static function killedByItsKillTimer(WorkerHandle $worker, string $reason, float $now): bool
    {
        if ($worker->kind !== WorkerHandle::TASK || $reason !== 'was killed by signal ' . \SIGKILL) {
            return false;
        }
        $killAt = $worker->taskSlot !== null
            ? $worker->taskAtExit['killAt'] ?? null
            : ($worker->lastTask() !== null ? $worker->status['kill_at'] ?? null : null);

        return (\is_int($killAt) || \is_float($killAt))
            && $now >= $killAt - 0.1
            && $now <= $killAt + self::KILL_TIMER_SLACK;
    }

    /**
     * Why it died, as far as the master knows: the worker's own words, or the task it was
     * running (its task slot's; without one, the task its last status named).
     */
    private static function why(WorkerHandle $worker, bool $killTimer, float $now): string
    {
        $why = $worker->error ?? $worker->dyingBecause;
        if ($why !== null) {
            return " ({$why})";
        }
        if ($worker->taskSlot !== null) {
            $running = $worker->taskAtExit;
            if ($running === null) {
                return '';
            }

            return \sprintf(
                $killTimer ? " while running task %s (its overrun guard's kill timer; started %.1f s before)" : ' (running task %s, started %.1f s before)',
                $running['task'],
                $now - $running['startedAt'],
            );
        }
        $task = $worker->lastTask();
        if ($task === null) {
            return '';
        }
        $ago = $now - ($worker->statusAt ?? $now);

        return $killTimer
            ? \sprintf(" while running task %s (its overrun guard's kill timer; reported running it %.1f s before)", $task, $ago)
            : \sprintf(' (last reported running task %s, %.1f s before)', $task, $ago);
    }

    /** A restart of $number could not be forked: logged, and tried again after the back-off. */
    private function afterForkFailure(int $number, ProcessException $error): void
    {
        $failures = $this->bootFailures[$number] = ($this->bootFailures[$number] ?? 0) + 1;
        $delay = self::backoff($failures);
        ($this->log)(\sprintf('cannot start %s: %s; retrying in %.1f s', $this->workers->labelOf($number), $error->getMessage(), $delay));
        $this->schedule($number, $delay);
    }
}
