<?php

declare(strict_types=1);

namespace Petrel\Coroutine;

use Closure;
use Fiber;
use Petrel\Coroutine\Internal\SuspendedReport;
use Petrel\Loop\Driver;
use Petrel\Loop\DriverFactory;
use Petrel\Loop\TracingDriver;
use Throwable;

/**
 * Runs coroutines on Fibers over one event loop; one scheduler per process.
 *
 * Fibers are pooled: a finished coroutine's fiber goes back to an idle list and runs the
 * next spawn, because creating a Fiber maps a fresh stack (~57k/s here) while switching to
 * an existing one is cheap (~4M/s). spawn() starts the coroutine at once, until it first
 * suspends. A coroutine woken from inside another coroutine is queued and resumed by the
 * loop, never nested; one woken from a loop callback is resumed directly. A client's
 * coroutine so resumed by its socket's read callback may wait for its next reply in
 * place (awaitReadable()) when the loop has nothing else to do.
 *
 * Code outside any coroutine (the "main" context: a script, a test, a php-fpm request) may
 * call suspending functions too: the loop then runs until that call is woken. If nothing
 * could ever wake it, a DeadlockError lists every suspended coroutine and where it waits.
 *
 * Why one class of ~520 lines: spawn, suspend, wake and the fiber switch are the hottest
 * path of every request (each wait of every socket goes through them), and splitting them
 * into collaborators adds a call to each, ~150 instructions apiece (measured with
 * bench/micro/http-instructions.sh). What is not on that path lives elsewhere already
 * (Internal\SuspendedReport, Timer, Channel and the other primitives).
 */
final class Scheduler
{
    private static ?self $instance = null;

    /**
     * @var array<int, Coroutine> unfinished coroutines by id, but for callAsChild()'s
     *     children (one per HTTP request): coroutines() reaches them through their parents
     */
    private array $alive = [];
    /** @var list<Fiber<mixed, mixed, mixed, mixed>> */
    private array $idle = [];
    /** @var list<Coroutine> woken from inside a coroutine, resumed by the loop */
    private array $ready = [];
    private bool $drainScheduled = false;
    private ?Coroutine $current = null;
    /**
     * The fiber a loop callback resumed with wakeLast() (as its last act), while it runs:
     * behind it the loop has nothing pending that it could not see. See awaitReadable().
     *
     * @var Fiber<mixed, mixed, mixed, mixed>|null
     */
    private ?Fiber $resumedLast = null;
    private readonly Coroutine $main;
    private int $lastId = 0;
    private int $lastScope = 0;
    private Closure $errorHandler;
    private readonly Closure $fiberMain;
    private readonly Closure $drain;

    public function __construct(
        public readonly Driver $driver,
        private readonly int $maxIdleFibers = 4096,
        private readonly bool $debug = false,
    ) {
        $this->main = new Coroutine(0, $this, []);
        $this->errorHandler = self::writeError(...);
        $this->fiberMain = $this->runFiber(...);
        $this->drain = $this->drainReady(...);
    }

    /**
     * The process-wide scheduler, created on first use (set PETREL_DEBUG=1 to trace).
     *
     * Scheduler::$instance, not self::$instance: PHP 8.2 caches a static property's address
     * only when the class is named (it compares the operand of self:: without the flag the
     * compiler adds to it), so self:: looks the property up on every call, ~80 instructions.
     */
    public static function get(): self
    {
        return Scheduler::$instance ??= self::create();
    }

    /**
     * Replaces the process-wide scheduler with a fresh one: after fork() in a worker, or
     * between tests. Coroutines of the old scheduler are abandoned.
     */
    public static function reset(?Driver $driver = null): self
    {
        return self::$instance = self::create($driver);
    }

    private static function create(?Driver $driver = null): self
    {
        $debug = (bool) \getenv('PETREL_DEBUG');
        $driver ??= DriverFactory::create(); // PETREL_DRIVER=select|epoll, else the best that works
        if ($debug && !$driver instanceof TracingDriver) {
            $driver = new TracingDriver($driver, describeCaller: SuspendedReport::callerOf(...));
        }

        return new self($driver, debug: $debug);
    }

    /**
     * Starts $function in a new coroutine; it runs until it first suspends, then spawn()
     * returns its handle.
     *
     * @param array<mixed> $args
     */
    public function spawn(Closure $function, array $args = []): Coroutine
    {
        $parent = $this->current ?? $this->main;
        $coroutine = new Coroutine(++$this->lastId, $this, $parent->context);
        $coroutine->spawnedBy = $parent->id;
        if ($this->debug) {
            $coroutine->origin = SuspendedReport::callerOf(\debug_backtrace(\DEBUG_BACKTRACE_IGNORE_ARGS, 8));
        }
        $this->alive[$coroutine->id] = $coroutine;
        $fiber = \array_pop($this->idle);
        $previous = $this->current;
        $this->current = $coroutine;
        try {
            if ($fiber === null) {
                $coroutine->fiber = new Fiber($this->fiberMain);
                $coroutine->fiber->start([$coroutine, $function, $args]);
            } else {
                $coroutine->fiber = $fiber;
                $fiber->resume([$coroutine, $function, $args]);
            }
        } finally {
            $this->current = $previous;
        }

        return $coroutine;
    }

    /**
     * Runs $function as a child coroutine and returns its result (or rethrows its
     * exception): what spawn($function)->join() does, without the two fiber switches. The
     * child gets its own id, Context (a copy of the caller's), defers and cancellation like
     * any coroutine, but it runs on the caller's fiber, so the caller stays blocked until
     * the child ends — use it where the caller would only wait anyway (the HTTP server runs
     * each request this way). Cancelling the caller cancels the child with the same reason
     * and, as join() would, the call then throws it; a deadline of the caller that expires
     * meanwhile throws when the child is done.
     *
     * @param array<mixed> $args
     */
    public function callAsChild(Closure $function, array $args = []): mixed
    {
        $previous = $this->current;
        $parent = $previous ?? $this->main;
        $child = new Coroutine(++$this->lastId, $this, $parent->context);
        if ($this->debug) {
            $child->origin = SuspendedReport::callerOf(\debug_backtrace(\DEBUG_BACKTRACE_IGNORE_ARGS, 8));
        }
        $child->fiber = $parent->fiber;
        $parent->child = $child; // not in $alive: coroutines() finds it through its parent
        $this->current = $child;
        try {
            $result = $child->execute($function, $args);
        } finally {
            // The child may have suspended and been resumed from the loop: whoever resumed
            // it restores its own view of the current coroutine; this frame restores ours.
            $this->current = $previous;
            $parent->child = null;
            $child->fiber = null;
        }
        if ($parent->cancelled !== null || $parent->expired !== []) {
            throw $parent->cancelled ?? \reset($parent->expired);
        }

        // A result: the child returned it (one that threw has none). Null: join() says
        // whether it returned null or threw.
        return $result ?? $child->join();
    }

    /** The running coroutine, or null in the main context. */
    public function current(): ?Coroutine
    {
        return $this->current;
    }

    /** The running coroutine, or the pseudo-coroutine #0 standing for the main context. */
    public function currentOrMain(): Coroutine
    {
        return $this->current ?? $this->main;
    }

    /**
     * get()->currentOrMain() in one call, for Context: a web request reads or writes its
     * context five times or more (the request scope, a request id), ~150 instructions each.
     */
    public static function running(): Coroutine
    {
        $scheduler = Scheduler::$instance ??= self::create(); // not self::$instance: see get()

        return $scheduler->current ?? $scheduler->main;
    }

    /** A new single-use suspension for the running coroutine (or the main context). */
    public function suspension(): Suspension
    {
        return new Suspension($this, $this->current ?? $this->main);
    }

    /**
     * @internal For a wait that recurs on one object (a socket's reads): $previous itself,
     * pending again, if it is done and belongs to the running coroutine, else a new
     * suspension — one object per socket instead of one per wait. Only for a suspension
     * that its waker forgets once it has woken it, so that no late resume() or throw()
     * can reach the next wait (Socket\Internal\Readiness clears its $reader in finally).
     */
    public function suspensionAgain(?Suspension $previous): Suspension
    {
        $coroutine = $this->current ?? $this->main;
        if ($previous === null || $previous->coroutine !== $coroutine || $previous->state !== Suspension::DONE) {
            return new Suspension($this, $coroutine);
        }
        $previous->state = Suspension::PENDING;
        if ($previous->value !== null || $previous->error !== null) {
            $previous->value = $previous->error = null;
        }

        return $previous;
    }

    /**
     * @internal $seconds as a timer's delay: a negative one is 0 (due now); NaN, which no
     * clock ever reaches (the loop would spin, its timers stuck behind it), is refused.
     *
     * @throws CoroutineError on NaN
     */
    public static function checkedDelay(float $seconds, string $what): float
    {
        // is_nan(), not a second comparison: opcache's optimizer may turn one into the other.
        return $seconds >= 0 ? $seconds : (\is_nan($seconds) ? throw new CoroutineError("{$what} must be a number of seconds, got NAN") : 0.0);
    }

    /**
     * Runs $function in the current coroutine with a deadline: any call that suspends after
     * $seconds throws a TimeoutException (the one pending at that moment included).
     */
    public function timeout(float $seconds, Closure $function): mixed
    {
        $coroutine = $this->current ?? $this->main;
        $scope = ++$this->lastScope;
        $timer = $this->driver->delay(self::checkedDelay($seconds, 'A timeout()'), static function () use ($coroutine, $scope, $seconds): void {
            $error = new TimeoutException(\sprintf('Timed out after %s s', \round($seconds, 6)));
            $coroutine->expired[$scope] = $error;
            $coroutine->suspension?->throw($error);
        });
        try {
            return $function();
        } finally {
            $this->driver->cancel($timer);
            unset($coroutine->expired[$scope]);
        }
    }

    /** Registers $callback to run, with no argument, when the current coroutine ends (last in, first out). */
    public function defer(Closure $callback): void
    {
        if ($this->current === null) {
            throw new CoroutineError('defer() must be called inside a coroutine (see Petrel\go() and Petrel\run())');
        }
        // Coroutine::execute() passes each deferred callback the coroutine, for the pool's
        // release at its end (Pool\Internal\CoroutineLeases). Wrapped, $callback gets none,
        // as documented: a closure of a built-in function that takes none (ob_end_clean(...))
        // would throw an ArgumentCountError on one, and an optional parameter would take it.
        $this->current->defers[] = static fn () => $callback();
    }

    /** @internal see Suspension::suspend() */
    public function suspend(Suspension $suspension, ?float $timeout): mixed
    {
        $coroutine = $suspension->coroutine;
        if ($suspension->state === Suspension::SUSPENDED || $suspension->state === Suspension::DONE) {
            throw new CoroutineError('A suspension can be suspended only once');
        }
        if ($coroutine !== ($this->current ?? $this->main)) {
            throw new CoroutineError("This suspension belongs to coroutine #{$coroutine->id}, not to the running one");
        }
        if ($suspension->state === Suspension::PENDING) {
            if ($coroutine->cancelled !== null || $coroutine->expired !== []) {
                $suspension->state = Suspension::DONE;
                throw $coroutine->cancelled ?? \reset($coroutine->expired);
            }
            $timer = $timeout === null ? null : $this->driver->delay(
                self::checkedDelay($timeout, 'A timeout'),
                static fn () => $suspension->throw(new TimeoutException(\sprintf('Timed out after %s s', \round($timeout, 6)))),
            );
            $suspension->state = Suspension::SUSPENDED;
            $coroutine->suspension = $suspension;
            try {
                if ($coroutine->fiber === null) {
                    $this->runLoopFor($suspension);
                } elseif (Fiber::getCurrent() !== $coroutine->fiber) {
                    throw new CoroutineError('Petrel calls that suspend must run in a Petrel coroutine or in the main context, not in a foreign Fiber');
                } else {
                    Fiber::suspend();
                }
            } finally {
                $coroutine->suspension = null;
                if ($timer !== null) {
                    $this->driver->cancel($timer);
                }
            }
        }
        $suspension->state = Suspension::DONE;
        if ($suspension->error !== null) {
            throw $suspension->error;
        }

        return $suspension->value;
    }

    /** @internal see Suspension::resume() and Suspension::throw() */
    public function wake(Suspension $suspension, mixed $value, ?Throwable $error): bool
    {
        $state = $suspension->state;
        if ($state >= Suspension::RESUMED) {
            return false;
        }
        $suspension->state = Suspension::RESUMED;
        if ($value !== null || $error !== null) { // both are null until the first wake
            $suspension->value = $value;
            $suspension->error = $error;
        }
        if ($state === Suspension::PENDING) {
            return true;
        }
        $coroutine = $suspension->coroutine;
        if ($coroutine->fiber === null) {
            $this->driver->stop();
        } elseif (Fiber::getCurrent() === null) {
            try {
                $this->switchTo($coroutine);
            } catch (\FiberError) {
                // PHP forbids switching fibers inside a destructor (a socket closed by its
                // destructor wakes its waiter): let the loop resume it instead.
                $this->enqueue($coroutine);
            }
        } else {
            $this->enqueue($coroutine);
        }

        return true;
    }

    /**
     * @internal wake($suspension) for a loop callback that does nothing after it (a socket's
     * read callback): what the coroutine does next is what the loop would do next, so it
     * may wait for a stream in place (awaitReadable()). Unless other streams' callbacks
     * follow in this tick (the driver's $more hint, passed on): a wait in place would find
     * them ready and give up, an epoll_wait() for nothing; then a plain wake().
     */
    public function wakeLast(Suspension $suspension, bool $more = false): void
    {
        if ($more) {
            $this->wake($suspension, null, null);

            return;
        }
        $previous = $this->resumedLast;
        $this->resumedLast = $suspension->coroutine->fiber;
        try {
            $this->wake($suspension, null, null);
        } finally {
            $this->resumedLast = $previous;
        }
    }

    /**
     * @internal Waits for the readable watcher $id in place, without suspending, when the
     * running code is what the loop would run next anyway: a coroutine resumed by
     * wakeLast() (not one it spawned meanwhile: the spawner waits behind it) or the main
     * context outside the loop. Then the loop's tick would only wait and run $id's
     * callback, which resumes this; Driver::awaitReadable() checks that it would (nothing
     * queued, no timer due, no other stream ready) and waits. False: suspend as usual.
     * Saves the suspension, two fiber switches and the loop's turn per reply awaited.
     */
    public function awaitReadable(int $id): bool
    {
        $coroutine = $this->current ?? $this->main;
        if ($coroutine->cancelled !== null || $coroutine->expired !== []
            || ($coroutine->fiber === null ? $this->driver->isRunning() : $coroutine->fiber !== $this->resumedLast)
        ) {
            return false;
        }

        return $this->driver->awaitReadable($id);
    }

    private function enqueue(Coroutine $coroutine): void
    {
        $this->ready[] = $coroutine;
        if (!$this->drainScheduled) {
            $this->drainScheduled = true;
            $this->driver->defer($this->drain);
        }
    }

    /**
     * Where uncaught coroutine exceptions go; by default a line and a trace on STDERR. The
     * handler may run in a loop callback, where nothing can suspend: for I/O (shipping the
     * error to a log server), start a coroutine with go(). A handler that throws (or
     * suspends there) does not lose the report: it goes to the default output, with why.
     *
     * @param Closure(Throwable, string): void $handler called with the error and where it happened
     */
    public function setErrorHandler(Closure $handler): void
    {
        $this->errorHandler = $handler;
    }

    /** @internal */
    public function reportError(Throwable $error, string $where): void
    {
        try {
            ($this->errorHandler)($error, $where);
        } catch (Throwable $handlerFailure) {
            // Neither the worker taken down nor the report lost.
            self::writeError($error, "{$where} (the error handler failed: " . $handlerFailure::class . ": {$handlerFailure->getMessage()})");
        }
    }

    private static function writeError(Throwable $error, string $where): void
    {
        $line = "Petrel: uncaught exception in {$where}: {$error}";
        // None under php-fpm, closed in a daemon: the error log then (see Observability\Log::stderr()).
        \defined('STDERR') && \is_resource(\STDERR) ? \fwrite(\STDERR, "{$line}\n") : \error_log($line);
    }

    /** @return array<int, Coroutine> unfinished coroutines by id */
    public function coroutines(): array
    {
        $all = $this->alive;
        foreach ([$this->main, ...$this->alive] as $coroutine) {
            for ($child = $coroutine->child; $child !== null; $child = $child->child) {
                $all[$child->id] = $child;
            }
        }
        \ksort($all);

        return $all;
    }

    /** @return array{alive: int, idleFibers: int, ready: int} */
    public function stats(): array
    {
        return ['alive' => \count($this->coroutines()), 'idleFibers' => \count($this->idle), 'ready' => \count($this->ready)];
    }

    /** A readable list of unfinished coroutines and where each one waits. */
    public function describe(): string
    {
        return SuspendedReport::describe($this->main, $this->coroutines(), $this->driver);
    }

    private function runLoopFor(Suspension $suspension): void
    {
        if ($this->driver->isRunning()) {
            throw new CoroutineError('Cannot suspend inside an event loop callback; start a coroutine with Petrel\go()');
        }
        while (true) {
            $this->driver->run();
            if (!$suspension->isPending()) {
                return;
            }
            if (!$this->driver->isReferenced()) {
                $suspension->state = Suspension::DONE;
                throw new DeadlockError(
                    "Everything is suspended: the main context waits, and no timer, stream or signal "
                    . "watcher is left that could wake it.\n" . $this->describe(),
                );
            }
        }
    }

    private function switchTo(Coroutine $coroutine): void
    {
        \assert($coroutine->fiber !== null);
        $previous = $this->current;
        $this->current = $coroutine;
        try {
            $coroutine->fiber->resume();
        } finally {
            $this->current = $previous;
        }
    }

    private function drainReady(): void
    {
        $ready = $this->ready;
        $this->ready = [];
        $this->drainScheduled = false;
        foreach ($ready as $coroutine) {
            $this->switchTo($coroutine);
        }
    }

    /**
     * The body of every pooled fiber: run a coroutine, park, run the next one. Started and
     * resumed by spawn() with [coroutine, function, arguments].
     *
     * @param array{Coroutine, Closure, array<mixed>} $start
     */
    private function runFiber(array $start): void
    {
        while (true) {
            [$coroutine, $function, $args] = $start;
            $start = [];
            $coroutine->execute($function, $args);
            unset($this->alive[$coroutine->id]);
            $fiber = $coroutine->fiber;
            $coroutine->fiber = null;
            $coroutine = $function = $args = null;
            if (\count($this->idle) >= $this->maxIdleFibers || $fiber === null) {
                return;
            }
            $this->idle[] = $fiber;
            $fiber = null;
            $start = Fiber::suspend();
            \assert(\is_array($start));
        }
    }
}
