<?php

declare(strict_types=1);

namespace Petrel\Socket;

/** Listening socket settings. Immutable; change with with*(). */
final class ServerOptions
{
    public function __construct(
        public readonly int $backlog = 511,
        public readonly bool $reusePort = false,
        public readonly bool $noDelay = true,
    ) {
    }

    public function withBacklog(int $backlog): self
    {
        return new self($backlog, $this->reusePort, $this->noDelay);
    }

    /** SO_REUSEPORT: several processes bind the same address; the kernel spreads connections. */
    public function withReusePort(bool $reusePort = true): self
    {
        return new self($this->backlog, $reusePort, $this->noDelay);
    }
}
