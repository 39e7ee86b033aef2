<?php

declare(strict_types=1);

namespace Petrel\Task\Internal;

use FFI;
use FFI\CData;
use Throwable;

/**
 * A kernel timer that SIGKILLs this process when it expires (a POSIX timer through FFI):
 * the last resort for a task blocked in a C call that retries the system call a signal
 * interrupts (PHP's socket streams, so mysqlnd and the http:// wrapper; pipes; libpq),
 * which no PHP signal handler can leave: PHP runs the handler only once the call returns.
 * Only the kernel ends such a process; pcntl has one timer, and OverrunGuard's alarm takes
 * it.
 *
 * Linux with ext-ffi only; create() returns null elsewhere. A POSIX timer is not inherited
 * across fork(): each process arms its own (the first arm() after a fork creates it).
 *
 * @internal
 */
final class KillTimer
{
    private const DECLARATIONS = <<<'C'
        typedef void *timer_t;
        struct sigevent { void *sigev_value; int sigev_signo; int sigev_notify; int pad[13]; };
        struct timespec { long tv_sec; long tv_nsec; };
        struct itimerspec { struct timespec it_interval; struct timespec it_value; };
        int timer_create(int clockid, struct sigevent *sevp, timer_t *timerid);
        int timer_settime(timer_t timerid, int flags, const struct itimerspec *new_value, struct itimerspec *old_value);
        C;
    private const CLOCK_MONOTONIC = 1;
    private const SIGEV_SIGNAL = 0;

    private ?CData $timer = null;
    private int $pid = 0;
    private readonly CData $spec;
    /** A pointer to $spec, made once rather than per call. */
    private readonly CData $specPointer;

    private function __construct(private readonly FFI $libc)
    {
        $spec = $libc->new('struct itimerspec');
        \assert($spec instanceof CData);
        $this->spec = $spec;
        $this->specPointer = FFI::addr($spec);
    }

    /** Null when the kernel timer cannot be had here (not Linux, no ext-ffi, ffi.enable off). */
    public static function create(): ?self
    {
        if (\PHP_OS_FAMILY !== 'Linux' || !\extension_loaded('ffi')) {
            return null;
        }
        foreach (['libc.so.6', 'librt.so.1'] as $library) { // glibc before 2.34: in librt
            try {
                return new self(FFI::cdef(self::DECLARATIONS, $library));
            } catch (Throwable) {
            }
        }

        return null;
    }

    /** SIGKILL in $seconds unless disarmed (or armed again) first. */
    public function arm(float $seconds): void
    {
        $timer = $this->timer();
        if ($timer !== null) {
            $seconds = \max(0.001, $seconds);
            $this->set($timer, (int) $seconds, (int) (($seconds - (int) $seconds) * 1e9));
        }
    }

    public function disarm(): void
    {
        if ($this->timer !== null && $this->pid === \getmypid()) {
            $this->set($this->timer, 0, 0);
        }
    }

    /** timer_settime(): expires in $seconds + $nanoseconds, once; zero disarms. */
    private function set(CData $timer, int $seconds, int $nanoseconds): void
    {
        /** @phpstan-ignore-next-line FFI struct field */
        $this->spec->it_value->tv_sec = $seconds;
        /** @phpstan-ignore-next-line FFI struct field */
        $this->spec->it_value->tv_nsec = $nanoseconds;
        /** @phpstan-ignore-next-line FFI call */
        $this->libc->timer_settime($timer, 0, $this->specPointer, null);
    }

    /** This process's timer, created on first use; null if the kernel refused one. */
    private function timer(): ?CData
    {
        $pid = (int) \getmypid();
        if ($this->pid !== $pid) {
            $this->pid = $pid;
            $event = $this->libc->new('struct sigevent');
            $timer = $this->libc->new('timer_t');
            \assert($event instanceof CData && $timer instanceof CData);
            /** @phpstan-ignore-next-line FFI struct field */
            $event->sigev_signo = \SIGKILL;
            /** @phpstan-ignore-next-line FFI struct field */
            $event->sigev_notify = self::SIGEV_SIGNAL;
            /** @phpstan-ignore-next-line FFI call */
            $created = $this->libc->timer_create(self::CLOCK_MONOTONIC, FFI::addr($event), FFI::addr($timer));
            $this->timer = $created === 0 ? $timer : null;
        }

        return $this->timer;
    }
}
