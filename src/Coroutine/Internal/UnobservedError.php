<?php

declare(strict_types=1);

namespace Petrel\Coroutine\Internal;

use Petrel\Coroutine\Scheduler;
use Throwable;

/**
 * The exception a coroutine ended with, reported when its coroutine is released without
 * anyone having joined it (the error would otherwise vanish). Held by the Coroutine only
 * once it failed, so a coroutine that succeeds has no destructor to run.
 *
 * @internal
 */
final class UnobservedError
{
    public bool $observed = false;

    public function __construct(
        private readonly Scheduler $scheduler,
        private readonly Throwable $error,
        private readonly int $coroutineId,
    ) {
    }

    public function __destruct()
    {
        if (!$this->observed) {
            $this->scheduler->reportError($this->error, "coroutine #{$this->coroutineId}");
        }
    }
}
