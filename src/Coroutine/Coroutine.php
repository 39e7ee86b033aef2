<?php

declare(strict_types=1);

namespace Petrel\Coroutine;

use Closure;
use Fiber;
use Petrel\Coroutine\Internal\UnobservedError;
use Throwable;

/**
 * A handle on a running or finished coroutine: join it for its result, cancel it.
 *
 * The fields marked internal belong to the Scheduler, which drives the coroutine; they are
 * public only because PHP has no friend classes.
 */
final class Coroutine
{
    /**
     * @internal
     * @var Fiber<mixed, mixed, mixed, mixed>|null
     */
    public ?Fiber $fiber = null;
    /** @internal The suspension this coroutine is waiting in, if any. */
    public ?Suspension $suspension = null;
    /**
     * @internal called by execute() with this coroutine as their argument (see Scheduler::defer())
     * @var list<Closure>
     */
    public array $defers = [];
    /**
     * @internal It has a default value so that the constructor's write takes the engine's
     *     fast path.
     * @var array<string, mixed>
     */
    public array $context = [];
    /** @internal Sticky cancellation reason: every suspension after cancel() throws it. */
    public ?CancelledException $cancelled = null;
    /**
     * @internal expired deadline scopes, by scope id
     * @var array<int, TimeoutException>
     */
    public array $expired = [];
    /** @internal The child it runs on its own fiber and waits for (Scheduler::callAsChild()). */
    public ?Coroutine $child = null;
    /**
     * @internal The id of the coroutine that spawn()ed it (0: the main context); null for
     *     callAsChild()'s children. So a worker dying in a coroutine a handler started can
     *     tell whose request it was (Console\Internal\FatalErrorResponder).
     */
    public ?int $spawnedBy = null;
    /** @internal Where it was spawned, recorded in debug mode only. */
    public ?string $origin = null;

    private bool $finished = false;
    private mixed $result = null;
    private ?Throwable $error = null;
    /** Reports $error if the coroutine is released without join() having seen it. */
    private ?UnobservedError $unobserved = null;
    /** @var array<int, Suspension> */
    private array $joiners = [];

    /**
     * @internal created by Scheduler::spawn() and callAsChild() (one per HTTP request), so
     *     it takes only what every coroutine has: each typed parameter costs ~200
     *     instructions, and the function to run is execute()'s. $scheduler is not readonly
     *     because a readonly property is initialised through the engine's slow path.
     * @param array<string, mixed> $context
     */
    public function __construct(
        public readonly int $id,
        private Scheduler $scheduler,
        array $context,
    ) {
        $this->context = $context;
    }

    public function isFinished(): bool
    {
        return $this->finished;
    }

    public function isSuspended(): bool
    {
        return $this->suspension !== null;
    }

    /**
     * Waits for the coroutine to finish and returns its result, or rethrows its exception.
     *
     * @throws TimeoutException if $timeout seconds pass first (the coroutine keeps running)
     */
    public function join(?float $timeout = null): mixed
    {
        if (!$this->finished) {
            $suspension = $this->scheduler->suspension();
            if ($suspension->coroutine === $this) {
                throw new CoroutineError("Coroutine #{$this->id} cannot join itself");
            }
            $key = \spl_object_id($suspension);
            $this->joiners[$key] = $suspension;
            try {
                $suspension->suspend($timeout);
            } finally {
                unset($this->joiners[$key]);
            }
        }
        if ($this->error !== null) {
            if ($this->unobserved !== null) {
                $this->unobserved->observed = true;
            }
            throw $this->error;
        }

        return $this->result;
    }

    /**
     * Cancels the coroutine: the call it is suspended in (or its next one) throws $reason, or
     * a CancelledException. Cancellation is sticky; it has no effect on a finished coroutine.
     * A coroutine that ends with this very exception did what was asked: join() rethrows
     * it, but nobody joining is no error to report.
     */
    public function cancel(?CancelledException $reason = null): void
    {
        if ($this->finished || $this->cancelled !== null) {
            return;
        }
        $this->cancelled = $reason ?? new CancelledException("Coroutine #{$this->id} was cancelled");
        $this->suspension?->throw($this->cancelled);
        $this->child?->cancel($this->cancelled);
    }

    /**
     * What a suspending call of this coroutine throws now, if anything: its cancellation,
     * or the TimeoutException of a timeout() scope of its that has expired. For code that
     * must tell its caller's interruption from a failure of its own (a pool's health check
     * cut short says nothing about the connection checked).
     */
    public function interruption(): ?CancelledException
    {
        return $this->cancelled ?? ($this->expired === [] ? null : \reset($this->expired));
    }

    /**
     * @internal Runs $function, then the deferred callbacks (last in, first out, each given
     * this coroutine), then wakes the joiners. Never throws: returns the result, null if there is none (an
     * exception, kept for join()).
     *
     * @param array<mixed> $args
     */
    public function execute(Closure $function, array $args): mixed
    {
        try {
            $this->result = $function(...$args);
        } catch (Throwable $error) {
            $this->error = $error;
        }
        while ($this->defers !== [] && ($defer = \array_pop($this->defers)) !== null) {
            try {
                $defer($this);
            } catch (Throwable $error) {
                if ($this->error === null) {
                    $this->error = $error;
                } else {
                    $this->scheduler->reportError($error, "a deferred callback of coroutine #{$this->id}");
                }
            }
        }
        // Ended by its own cancellation: the outcome its canceller asked for, not a failure
        // that would vanish unreported (a CancelledException of another coroutine it
        // joined, or of an expired timeout() of its own, is one).
        if ($this->error !== null && $this->error !== $this->cancelled) {
            $this->unobserved = new UnobservedError($this->scheduler, $this->error, $this->id);
        }
        $this->finished = true;
        $this->context = [];
        $this->expired = [];
        if ($this->joiners !== []) {
            foreach ($this->joiners as $joiner) {
                $joiner->resume();
            }
            $this->joiners = [];
        }

        return $this->error === null ? $this->result : null;
    }
}
