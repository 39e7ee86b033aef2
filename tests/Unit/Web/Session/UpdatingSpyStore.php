<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Session;

use Closure;
use Petrel\Web\Session\AtomicSessionStore;
use Petrel\Web\Session\MemoryStore;

/** A MemoryStore that records every call, as an AtomicSessionStore (SpyStore is a plain one). */
final class UpdatingSpyStore implements AtomicSessionStore
{
    /** @var list<string> "read id", "write id", "destroy id", "update id" */
    public array $calls = [];

    public readonly MemoryStore $inner;

    public function __construct()
    {
        $this->inner = new MemoryStore();
    }

    public function read(string $id): ?array
    {
        $this->calls[] = "read {$id}";

        return $this->inner->read($id);
    }

    public function write(string $id, array $data, int $ttl): void
    {
        $this->calls[] = "write {$id}";
        $this->inner->write($id, $data, $ttl);
    }

    public function destroy(string $id): void
    {
        $this->calls[] = "destroy {$id}";
        $this->inner->destroy($id);
    }

    public function update(string $id, Closure $change, int $ttl): ?array
    {
        $this->calls[] = "update {$id}";

        return $this->inner->update($id, $change, $ttl);
    }
}
