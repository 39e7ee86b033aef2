<?php

declare(strict_types=1);

namespace App\Service;

use Symfony\Contracts\Service\ResetInterface;

/**
 * A service with per-request state (what this request did), like a buffered logger or a
 * profiler: autoconfigure tags it kernel.reset, so a resident server must call reset()
 * between requests, or one request's entries would show up in the next.
 */
final class RequestJournal implements ResetInterface
{
    /** @var list<string> */
    private array $entries = [];

    public function record(string $entry): void
    {
        $this->entries[] = $entry;
    }

    /** @return list<string> */
    public function entries(): array
    {
        return $this->entries;
    }

    public function reset(): void
    {
        $this->entries = [];
    }
}
