<?php

declare(strict_types=1);

namespace Petrel\Coroutine\Internal;

use Petrel\Coroutine\Coroutine;
use Petrel\Coroutine\Scheduler;
use Throwable;

/**
 * Waits for coroutines to finish even when the waiting one is cancelled or its deadline has
 * passed: parallel() cancels its tasks and then waits for them, and a cancelled caller's
 * join() would throw at once (cancellation is sticky), returning while the tasks' finally
 * blocks still had to run. The caller's cancellation and expired deadlines are set aside
 * while it waits and put back after, for its next suspension; one that comes meanwhile is
 * kept too.
 *
 * @internal
 */
final class JoinAll
{
    /** @param iterable<Coroutine> $coroutines */
    public static function regardless(Scheduler $scheduler, iterable $coroutines): void
    {
        $me = $scheduler->currentOrMain();
        foreach ($coroutines as $coroutine) {
            while (!$coroutine->isFinished()) {
                [$cancelled, $expired] = [$me->cancelled, $me->expired];
                $me->cancelled = null;
                $me->expired = [];
                try {
                    $coroutine->join();
                } catch (Throwable) {
                    // Its outcome, or one more cancellation of ours: wait on, until it ends.
                } finally {
                    $me->cancelled = $cancelled ?? $me->cancelled;
                    $me->expired = $expired + $me->expired;
                }
            }
        }
    }
}
