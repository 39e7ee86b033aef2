<?php

declare(strict_types=1);

namespace Petrel\Loop;

/**
 * Which loop driver DriverFactory picks in this process, and why: `fallbackReason` is one
 * line saying why epoll was not used when the choice fell back to select without being
 * asked to (null otherwise). The CLI prints it at start.
 */
final class DriverChoice
{
    /** @param 'epoll'|'select' $name */
    public function __construct(
        public readonly string $name,
        public readonly ?string $fallbackReason = null,
    ) {
    }

    public function create(): Driver
    {
        return $this->name === 'epoll' ? new EpollDriver() : new StreamSelectDriver();
    }
}
