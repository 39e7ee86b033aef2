<?php

declare(strict_types=1);

namespace Petrel;

use Closure;
use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\Coroutine;
use Petrel\Coroutine\Internal\JoinAll;
use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\Timer;
use Throwable;

/**
 * Starts $function in a new coroutine and returns its handle. The coroutine runs at once,
 * until it first suspends. An exception it throws is rethrown by join(); if nobody ever
 * joins, it is reported (STDERR by default), never fatal to the process — unless it is the
 * coroutine's own cancellation (cancel()), which is what its canceller asked for.
 */
function go(Closure $function, mixed ...$args): Coroutine
{
    return Scheduler::get()->spawn($function, $args);
}

/**
 * Runs $function in a coroutine and waits for it, running the event loop meanwhile:
 * the entry point of a script or a test. Returns its result or rethrows its exception.
 *
 * It returns when $function does: coroutines $function started with go() and did not wait
 * for are left where they are suspended (unlike Swoole's Co\run(), which waits for every
 * coroutine) — at the end of a script their remaining work never runs. Wait for them:
 * join() them, or use parallel() or a WaitGroup. (A server's worker runs in run() too and
 * must be able to stop while an APP's background coroutines still wait.)
 */
function run(Closure $function, mixed ...$args): mixed
{
    return Scheduler::get()->spawn($function, $args)->join();
}

/** Suspends the current coroutine for $seconds; other coroutines run meanwhile. */
function sleep(float $seconds): void
{
    $scheduler = Scheduler::get();
    $suspension = $scheduler->suspension();
    $timer = $scheduler->driver->delay(Scheduler::checkedDelay($seconds, 'sleep()'), static fn () => $suspension->resume());
    try {
        $suspension->suspend();
    } finally {
        $scheduler->driver->cancel($timer);
    }
}

/**
 * Runs $function with a deadline: whatever it is suspended in when $seconds have passed
 * (a sleep, a channel, a socket read, a query) throws a Coroutine\TimeoutException.
 *
 * @template T
 * @param Closure(): T $function
 * @return T
 */
function timeout(float $seconds, Closure $function): mixed
{
    return Scheduler::get()->timeout($seconds, $function);
}

/** Runs $callback when the current coroutine ends, normally or by an exception (LIFO). */
function defer(Closure $callback): void
{
    Scheduler::get()->defer($callback);
}

/**
 * Runs the callables concurrently, each in its own coroutine, and returns their results
 * with the same keys, in the same order. The first exception wins: the other coroutines
 * are cancelled, waited for, and the exception is rethrown.
 *
 * @param array<array-key, Closure> $tasks
 * @return array<array-key, mixed>
 */
function parallel(array $tasks): array
{
    $scheduler = Scheduler::get();
    $pending = \count($tasks);
    if ($pending === 0) {
        return [];
    }
    $suspension = $scheduler->suspension();
    $failure = null;
    $results = \array_fill_keys(\array_keys($tasks), null);
    $finish = static function (?Throwable $error) use (&$pending, &$failure, $suspension): void {
        $pending--;
        if ($error !== null && $failure === null) {
            $failure = $error;
            $suspension->resume();
        } elseif ($pending === 0) {
            $suspension->resume();
        }
    };
    $coroutines = [];
    foreach ($tasks as $key => $task) {
        $coroutines[$key] = $scheduler->spawn(static function () use ($task, $key, &$results, $finish): void {
            try {
                $results[$key] = $task();
            } catch (Throwable $error) {
                $finish($error);

                return;
            }
            $finish(null);
        });
    }
    try {
        $suspension->suspend();
    } finally {
        if ($pending > 0) {
            foreach ($coroutines as $coroutine) {
                $coroutine->cancel(new CancelledException('Cancelled: a sibling task in parallel() failed or the caller was cancelled'));
            }
            // Waited for even when this caller was cancelled or its deadline passed (then
            // its join() would throw at once); their outcome no longer matters.
            JoinAll::regardless($scheduler, $coroutines);
        }
    }
    if ($failure !== null) {
        throw $failure;
    }

    return $results;
}

/**
 * Runs $callback every $seconds, each time in a coroutine of its own (it may suspend); a tick
 * due while the previous one still runs is skipped. Returns the timer, to cancel() it.
 * In a server, call it from the APP file: each worker runs its own timer.
 *
 * @param Closure(Timer): mixed $callback
 */
function every(float $seconds, Closure $callback): Timer
{
    return Timer::start($seconds, $callback, true, Timer::callSite(\debug_backtrace(\DEBUG_BACKTRACE_IGNORE_ARGS, 1)));
}

/**
 * Runs $callback once after $seconds, in a coroutine of its own. Returns the timer, to
 * cancel() it before it fires.
 *
 * @param Closure(Timer): mixed $callback
 */
function after(float $seconds, Closure $callback): Timer
{
    return Timer::start($seconds, $callback, false, Timer::callSite(\debug_backtrace(\DEBUG_BACKTRACE_IGNORE_ARGS, 1)));
}

/**
 * Runs $task (an invokable class name or a function name) with $args in a task worker and
 * returns its result; the calling coroutine waits, the worker serves on. Needs
 * `--task-workers=N` (or Task\Tasks::inline() outside a server). See Task\Tasks.
 *
 * @param array<array-key, mixed> $args serializable; string keys are named arguments
 * @throws Task\TaskException
 * @throws Task\TaskError
 */
function task(string $task, array $args = [], ?float $timeout = null): mixed
{
    return Task\Tasks::run($task, $args, $timeout);
}
