<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Session;

use Closure;
use Petrel\Web\Session\AtomicSessionStore;

/** A SpyStore that is an AtomicSessionStore: update() is recorded too ("update id"). */
final class UpdatingSpyStore extends SpyStore implements AtomicSessionStore
{
    public function update(string $id, Closure $change, int $ttl): ?array
    {
        $this->calls[] = "update {$id}";

        return $this->inner->update($id, $change, $ttl);
    }
}
