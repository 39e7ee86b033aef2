<?php

declare(strict_types=1);

namespace Petrel\Task\Internal;

use Closure;

/**
 * Ends a task that runs past its deadline plus a grace, as php-fpm's
 * request_terminate_timeout does: the caller gave up at the deadline, and a task that never
 * returns (an endless loop, a call that hangs) held its task worker for ever, every later
 * task timing out behind it.
 *
 * Two stages, armed for each task and disarmed after it:
 * - SIGALRM (pcntl_alarm(), whole seconds: at most a second late) with an async handler,
 *   installed without SA_RESTART: it runs inside PHP code and ends sleep(), usleep(),
 *   flock(), stream_select() and ext-sockets reads early; it calls $onOverrun, which ends
 *   the process (an exit(): no catch or finally of the task runs). From the handler on,
 *   SIGALRM is fatal and due again in $killGrace, in case the exit hangs (a destructor).
 * - KillTimer: SIGKILL $killGrace after the alarm, for a task blocked in a C call that
 *   retries when interrupted (a PHP socket stream, mysqlnd, libpq), where the handler
 *   cannot run. Without ext-ffi such a task is ended only once the call returns.
 *
 * @internal
 */
final class OverrunGuard
{
    private ?float $startedAt = null;
    private float $deadline = 0.0;
    private bool $asyncSignals = false;
    /** @var callable|int */
    private mixed $previousHandler = \SIG_DFL;
    private readonly ?KillTimer $killTimer;
    private readonly Closure $handler;

    /**
     * @param Closure(float, float): void $onOverrun called in the handler with how long the
     *        task ran and how far past its deadline it is (seconds); it must end the process
     */
    public function __construct(
        private readonly float $grace,
        private readonly float $killGrace,
        private readonly Closure $onOverrun,
    ) {
        $this->killTimer = KillTimer::create();
        $this->handler = $this->onAlarm(...);
    }

    /**
     * Before a task whose caller waits until $deadline (microtime). Returns when the kill
     * timer will SIGKILL this process if the task is still running (microtime), or null
     * without a kill timer.
     */
    public function arm(float $deadline): ?float
    {
        $this->startedAt = \microtime(true);
        $this->deadline = $deadline;
        $alarm = \max(1, (int) \ceil($deadline + $this->grace - $this->startedAt));
        $this->asyncSignals = \pcntl_async_signals(true);
        $this->previousHandler = \pcntl_signal_get_handler(\SIGALRM);
        \pcntl_signal(\SIGALRM, $this->handler, false);
        \pcntl_alarm($alarm);
        if ($this->killTimer === null) {
            return null;
        }
        $this->killTimer->arm($alarm + $this->killGrace);

        return $this->startedAt + $alarm + $this->killGrace;
    }

    /** After the task, however it ended. */
    public function disarm(): void
    {
        if ($this->startedAt === null) {
            return;
        }
        $this->startedAt = null; // first: an alarm that comes now is ignored
        \pcntl_alarm(0);
        $this->killTimer?->disarm();
        \pcntl_signal(\SIGALRM, $this->previousHandler);
        \pcntl_async_signals($this->asyncSignals);
    }

    private function onAlarm(): void
    {
        $startedAt = $this->startedAt;
        if ($startedAt === null) {
            return; // the task ended as the alarm came
        }
        $this->startedAt = null;
        \pcntl_signal(\SIGALRM, \SIG_DFL);
        \pcntl_alarm(\max(1, (int) \ceil($this->killGrace)));
        $now = \microtime(true);
        ($this->onOverrun)($now - $startedAt, $now - $this->deadline);
    }
}
