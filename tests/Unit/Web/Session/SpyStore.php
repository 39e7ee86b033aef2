<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\Session;

use Petrel\Web\Session\MemoryStore;
use Petrel\Web\Session\SessionStore;

use function Petrel\sleep;

/** A MemoryStore that records every call; reads can be made to suspend (like a network store). */
class SpyStore implements SessionStore
{
    /** @var list<string> "read id", "write id", "destroy id" */
    public array $calls = [];

    public readonly MemoryStore $inner;

    public function __construct(private readonly float $readDelay = 0.0)
    {
        $this->inner = new MemoryStore();
    }

    public function read(string $id): ?array
    {
        $this->calls[] = "read {$id}";
        if ($this->readDelay > 0) {
            sleep($this->readDelay);
        }

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

    /** @return list<string> the calls of one kind ("read", "write", "destroy"), ids only */
    public function callsOf(string $kind): array
    {
        $ids = [];
        foreach ($this->calls as $call) {
            [$name, $id] = \explode(' ', $call, 2);
            if ($name === $kind) {
                $ids[] = $id;
            }
        }

        return $ids;
    }
}
