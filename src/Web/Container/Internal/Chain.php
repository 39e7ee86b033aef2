<?php

declare(strict_types=1);

namespace Petrel\Web\Container\Internal;

use Petrel\Web\Container\ContainerException;

/**
 * The entries being resolved, outermost first, with their lifetimes: what circular and
 * captive dependencies are detected from, and what error messages show. Immutable.
 *
 * @internal
 */
final readonly class Chain
{
    /** @param list<array{string, Lifetime}> $frames */
    public function __construct(private array $frames = [])
    {
    }

    /** @throws ContainerException when $id is already being resolved (a circular dependency) */
    public function with(string $id, Lifetime $lifetime): self
    {
        foreach ($this->frames as [$seen]) {
            if ($seen === $id) {
                throw new ContainerException('Circular dependency: ' . \implode(' → ', [...$this->ids(), $id]));
            }
        }

        return new self([...$this->frames, [$id, $lifetime]]);
    }

    /** @throws ContainerException when a singleton is being built: it would hold $id forever */
    public function assertMayUseScoped(string $id): void
    {
        foreach ($this->frames as [$owner, $lifetime]) {
            if ($lifetime === Lifetime::Singleton) {
                throw $this->error("captive dependency: singleton {$owner} would keep the request-scoped {$id} "
                    . "of one request forever; make {$owner} scoped, or inject ContainerInterface and "
                    . "get({$id}) while handling each request", $id);
            }
        }
    }

    /** "Cannot resolve A → B → $last: $reason" */
    public function error(string $reason, ?string $last = null): ContainerException
    {
        return new ContainerException($this->message($reason, $last));
    }

    public function message(string $reason, ?string $last = null): string
    {
        $ids = $last === null ? $this->ids() : [...$this->ids(), $last];

        return 'Cannot resolve ' . \implode(' → ', $ids) . ': ' . $reason;
    }

    /** @return list<string> */
    private function ids(): array
    {
        return \array_column($this->frames, 0);
    }
}
