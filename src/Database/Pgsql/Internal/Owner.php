<?php

declare(strict_types=1);

namespace Petrel\Database\Pgsql\Internal;

use Petrel\Coroutine\Scheduler;
use Petrel\Database\DatabaseError;

/**
 * Which coroutine is using a connection: one at a time, or a DatabaseError.
 *
 * @internal
 */
final class Owner
{
    /** Id of the coroutine in a call (0: the main context); null when idle. */
    private ?int $id = null;

    public function enter(): void
    {
        if ($this->id !== null) {
            throw $this->conflict();
        }
        $this->id = Scheduler::get()->currentOrMain()->id;
    }

    public function leave(): void
    {
        $this->id = null;
    }

    public function busy(): bool
    {
        return $this->id !== null;
    }

    private function conflict(): DatabaseError
    {
        if ($this->id === Scheduler::get()->currentOrMain()->id) {
            return new DatabaseError(
                'PostgreSQL connection already in use by this coroutine: a stream() over it is still being iterated; '
                . 'finish or drop that iteration first, or use another connection',
            );
        }

        return new DatabaseError("PostgreSQL connection already in use by coroutine #{$this->id}; use a Pool");
    }
}
