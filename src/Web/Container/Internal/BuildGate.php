<?php

declare(strict_types=1);

namespace Petrel\Web\Container\Internal;

use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\Suspension;

/**
 * Lets one coroutine at a time build a shared instance: a singleton (or scoped service)
 * whose factory suspends — connecting a pool, say — must not be built twice by two
 * coroutines asking for it at the same moment. The others wait, then find it built.
 *
 * @internal
 */
final class BuildGate
{
    /** @var array<string, list<Suspension>> key being built => coroutines waiting for it */
    private array $building = [];

    /** Waits while another coroutine builds $key, then claims it; pair with leave(). */
    public function enter(string $key): void
    {
        while (isset($this->building[$key])) {
            $suspension = Scheduler::get()->suspension();
            $this->building[$key][] = $suspension;
            $suspension->suspend();
        }
        $this->building[$key] = [];
    }

    public function leave(string $key): void
    {
        $waiting = $this->building[$key] ?? [];
        unset($this->building[$key]);
        foreach ($waiting as $suspension) {
            $suspension->resume();
        }
    }
}
