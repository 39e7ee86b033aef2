<?php

declare(strict_types=1);

namespace Petrel\Bench\Server;

use Petrel\Bench\Internal\ChildProcess;

/**
 * A server under test: where it listens and the processes that make it up (e.g. nginx
 * and php-fpm), whose CPU and memory are sampled during the load.
 */
final class Server
{
    /** @param list<ChildProcess> $processes */
    public function __construct(
        public readonly string $name,
        public readonly string $url,
        private readonly array $processes,
    ) {
    }

    /** @return list<int> root pids; their descendants (workers) are found at each sample */
    public function pids(): array
    {
        return \array_map(static fn (ChildProcess $p): int => $p->pid(), $this->processes);
    }

    /** @return list<ChildProcess> */
    public function processes(): array
    {
        return $this->processes;
    }

    public function stop(): void
    {
        foreach (\array_reverse($this->processes) as $process) {
            $process->stop();
        }
    }
}
