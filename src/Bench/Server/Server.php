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
    /** A worker's unplanned exit, as bin/petrel's master and php-fpm log it. */
    private const CRASH = '/\bworker \d+ \(pid \d+\) (?:was killed by signal \d+|exited with code \d+).*?; (?:restarting|starting a fresh one)'
        . '|\bchild \d+ exited (?:on signal \d+|with code [1-9]\d*)[^\n]*/';
    /** A request whose handler threw, as a Petrel worker logs it (Observability\Log::requestFailed()). */
    private const FAILURE = '/\bpetrel: [A-Z]+ \S+ failed: [^\n]*/';

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

    /**
     * The unplanned worker exits its processes logged: a Petrel master's "worker 2 (pid 123)
     * was killed by signal 11; restarting", php-fpm's "child 123 exited on signal 11
     * (SIGSEGV) …". A server that lost workers under load served part of the run short of
     * them (and its clients saw resets): the report says so rather than leaving it to the logs.
     *
     * @return list<string> "process: line", in log order
     */
    public function crashes(): array
    {
        return $this->logged(self::CRASH);
    }

    /**
     * The requests whose handler failed, as its processes logged them: a Petrel worker's
     * "petrel: GET / failed: Petrel\Database\ConnectionException: … Too many connections".
     * Each was answered 500 and counts among the run's non-2xx answers; the report says why
     * (a database refusing connections, an exhausted pool) rather than only how many.
     *
     * @return list<string> "process: line", in log order
     */
    public function failures(): array
    {
        return $this->logged(self::FAILURE);
    }

    public function stop(): void
    {
        foreach (\array_reverse($this->processes) as $process) {
            $process->stop();
        }
    }

    /** @return list<string> "process: match" for what $pattern matches in each process's log */
    private function logged(string $pattern): array
    {
        $found = [];
        foreach ($this->processes as $process) {
            \preg_match_all($pattern, $process->output(), $matches);
            foreach ($matches[0] as $line) {
                $found[] = "{$process->name}: {$line}";
            }
        }

        return $found;
    }
}
