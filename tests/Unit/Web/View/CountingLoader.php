<?php

declare(strict_types=1);

namespace Petrel\Tests\Unit\Web\View;

use Twig\Loader\LoaderInterface;
use Twig\Source;

/** Wraps a loader and counts how often each template's source is read (= compiled). */
final class CountingLoader implements LoaderInterface
{
    /** @var array<string, int> */
    public array $sourceReads = [];

    public function __construct(private readonly LoaderInterface $inner)
    {
    }

    public function getSourceContext(string $name): Source
    {
        $this->sourceReads[$name] = ($this->sourceReads[$name] ?? 0) + 1;

        return $this->inner->getSourceContext($name);
    }

    public function getCacheKey(string $name): string
    {
        return $this->inner->getCacheKey($name);
    }

    public function isFresh(string $name, int $time): bool
    {
        return $this->inner->isFresh($name, $time);
    }

    public function exists(string $name): bool
    {
        return $this->inner->exists($name);
    }

    public function total(): int
    {
        return \array_sum($this->sourceReads);
    }
}
