<?php

declare(strict_types=1);

namespace Petrel\Console\Internal;

use Petrel\Console\ConsoleException;
use Petrel\Process\WorkerContext;

/**
 * Decides when a worker asks its master to be replaced (a planned recycle, not a crash):
 *
 * - after --max-requests requests, plus a per-worker jitter of up to 10 % (Swoole's
 *   max_request_grace), so workers started together do not all recycle together;
 * - after the request during which the worker's memory passed --max-memory. "Memory" is
 *   the peak of PHP's heap (memory_get_peak_usage(true), what memory_limit counts; read
 *   after every request, then reset, so it costs two function calls), and the process's
 *   resident size (VmRSS from /proc/self/status, read once a second: it also counts what
 *   extensions allocate outside PHP's heap and what the allocator keeps after a peak).
 *
 * It asks once; the worker goes on serving until the master has its replacement ready and
 * sends SIGTERM. A worker whose memory is already past --max-memory right after boot would
 * be replaced forever: check() refuses that at boot instead.
 *
 * @internal
 */
final class RecycleTrigger
{
    private bool $asked = false;
    private readonly int $requestLimit;

    public function __construct(
        private readonly WorkerContext $context,
        int $maxRequests,
        private readonly int $maxMemory,
        /** What the count passed to afterRequest() counts, for the reason ("reached 100 tasks"). */
        private readonly string $unit = 'requests',
    ) {
        $this->requestLimit = $maxRequests > 0 ? $maxRequests + \random_int(0, \intdiv($maxRequests, 10)) : 0;
    }

    /**
     * Refuses a --max-memory this worker is already past after boot.
     *
     * @throws ConsoleException
     */
    public function check(): void
    {
        $memory = \max(\memory_get_usage(true), self::residentBytes());
        if ($this->maxMemory > 0 && $memory >= $this->maxMemory) {
            throw new ConsoleException(\sprintf('--max-memory=%s is below what a worker uses right after boot (%s)', self::size($this->maxMemory), self::size($memory)));
        }
        \memory_reset_peak_usage();
    }

    /** Server::onRequest listener: $total is the worker's running request (or task) count. */
    public function afterRequest(int $total): void
    {
        if ($this->asked) {
            return;
        }
        if ($this->requestLimit > 0 && $total >= $this->requestLimit) {
            $this->ask("reached {$total} {$this->unit}");
        } elseif ($this->maxMemory > 0) {
            $peak = \memory_get_peak_usage(true);
            if ($peak > $this->maxMemory) {
                $this->ask(\sprintf('reached %s of memory (--max-memory=%s)', self::size($peak), self::size($this->maxMemory)));
            } else {
                \memory_reset_peak_usage();
            }
        }
    }

    /** Called once a second: the resident size, which the per-request check does not read. */
    public function checkResidentSize(): void
    {
        if ($this->asked || $this->maxMemory <= 0) {
            return;
        }
        $rss = self::residentBytes();
        if ($rss > $this->maxMemory) {
            $this->ask(\sprintf('reached %s resident (--max-memory=%s)', self::size($rss), self::size($this->maxMemory)));
        }
    }

    /** As the options write sizes: "512M", "1G" when whole, else "84.2M". */
    public static function size(int $bytes): string
    {
        foreach (['G' => 1 << 30, 'M' => 1 << 20] as $unit => $factor) {
            if ($bytes >= $factor && $bytes % $factor === 0) {
                return \intdiv($bytes, $factor) . $unit;
            }
        }

        return $bytes < 1 << 20 ? \intdiv($bytes, 1024) . 'K' : \sprintf('%.1fM', $bytes / (1 << 20));
    }

    /**
     * Sets this worker's memory_limit (--memory-limit; -1: none).
     *
     * @throws ConsoleException if PHP refuses it (below what the worker already uses): the
     *         worker would run on under php.ini's limit, the protection silently gone
     */
    public static function applyMemoryLimit(int $bytes): void
    {
        if (@\ini_set('memory_limit', $bytes === -1 ? '-1' : (string) $bytes) === false) {
            throw new ConsoleException(\sprintf('cannot set memory_limit to %s (--memory-limit): the worker already uses %s', self::size($bytes), self::size(\memory_get_usage(true))));
        }
    }

    private function ask(string $reason): void
    {
        $this->asked = true;
        $this->context->retiring($reason);
    }

    /** VmRSS of this process in bytes (0 where /proc is missing). */
    private static function residentBytes(): int
    {
        $status = @\file_get_contents('/proc/self/status');

        return \is_string($status) && \preg_match('/^VmRSS:\s+(\d+) kB/m', $status, $m) ? (int) $m[1] * 1024 : 0;
    }
}
