<?php

declare(strict_types=1);

namespace Petrel\Observability;

use Closure;
use Petrel\Loop\TickCounter;
use Petrel\Observability\Internal\BlockingWatchdog;

/**
 * Finds the code that blocks a worker's event loop: while one callback (a request's
 * coroutine, a timer) runs for longer than the threshold without giving the loop back, the
 * worker is serving nobody else. Reports it once per call site, with the file:line, the
 * stack and what to do instead.
 *
 * How, without threads: the master maps one region of shared memory before it forks the
 * workers, with a slot per worker process (Internal\BlockingWatchdog); each HTTP worker
 * publishes its loop's tick count in its slot (Loop\TickCounter: odd while it waits for
 * I/O, even while callbacks run). The master's select() loop wakes every threshold/4 while
 * a worker is watched, compares each slot with its last reading, and when a count stays
 * even and unchanged for the threshold it sends that worker one SIGALRM. PHP's async
 * signal handler (start()) then runs *inside* the blocked code, where debug_backtrace()
 * shows it: at once in a CPU loop, and as soon as a blocking C call returns (PDO, a stream
 * read: they resume after the signal; `sleep()`/`usleep()` do not, so one that already
 * blocked the loop for the threshold is cut short there). Healthy code never sees a
 * signal: one is sent only per blocking episode, only past the threshold.
 *
 * No process per worker: one watchdog, the master, for them all. A worker replaced
 * (--max-requests, reload) gets a fresh slot when it is forked; its old one is freed when
 * the master reaps it. Task workers are not watched (blocking is what they are for).
 * Costs: in the worker, two FFI writes a loop wait (~1,400 instructions: +3 % on hello at
 * one request per wait, lost in the noise at 50 connections, bench/micro/
 * http-instructions.sh); in the master, 40 wake-ups a second at the default 100 ms
 * (~0.3 % of a core with 2 idle workers).
 *
 * Not for --mode=sync, where blocking is the model.
 */
final class BlockingDetector
{
    /** Blocking episodes seen (each report, and repeats of a reported site). */
    public int $episodes = 0;
    /** @var array<string, true> sites reported */
    private array $reported = [];
    private readonly string $petrelSource;
    private readonly string $petrelBin;

    /**
     * @param Closure(string): void|null $report where a report goes; Log::warning() by default
     */
    public function __construct(
        public readonly float $thresholdSeconds,
        private readonly ?Closure $report = null,
    ) {
        if ($thresholdSeconds <= 0) {
            throw new \InvalidArgumentException("The threshold must be > 0 s, got {$thresholdSeconds}");
        }
        $this->petrelSource = \dirname(__DIR__) . \DIRECTORY_SEPARATOR;
        $this->petrelBin = \dirname(__DIR__, 2) . \DIRECTORY_SEPARATOR . 'bin' . \DIRECTORY_SEPARATOR;
    }

    /**
     * In the worker: installs the SIGALRM handler, then publishes this loop's ticks in
     * $cells, the worker's slot in the master's watchdog (WorkerContext::$watchdogCells).
     * The master signals only once the count is published, so never before the handler
     * is there.
     */
    public function start(\FFI\CData $cells): void
    {
        \pcntl_async_signals(true);
        \pcntl_signal(\SIGALRM, $this->onAlarm(...));
        // A worker that exits from inside a callback (exit() in a handler, a fatal error)
        // leaves its count even and still: without this, its shut-down would be reported
        // as blocking, and the SIGALRM, once PHP has dropped the handler, would kill it
        // ("killed by signal 14" instead of its exit code).
        \register_shutdown_function($this->stop(...));
        $cells[BlockingWatchdog::TICKS] = TickCounter::$count;
        TickCounter::$cell = $cells;
    }

    /**
     * Stops publishing (the loop has ended, or the process is exiting; what runs now, the
     * shut-down, is not the loop's to report): the master stops watching this worker, and a
     * signal it sent just before is ignored rather than fatal.
     */
    public function stop(): void
    {
        $cells = TickCounter::$cell;
        TickCounter::$cell = null;
        if ($cells !== null) {
            $cells[BlockingWatchdog::TICKS] = BlockingWatchdog::UNWATCHED;
            \pcntl_signal(\SIGALRM, \SIG_IGN);
        }
    }

    /** The async SIGALRM handler: runs inside the blocked code. */
    private function onAlarm(): void
    {
        $cells = TickCounter::$cell;
        if ($cells === null || TickCounter::isWaiting() || (int) $cells[BlockingWatchdog::SIGNALLED] !== TickCounter::$count) {
            return; // the loop moved on between the master's look and the signal
        }
        ++$this->episodes;
        $frames = \debug_backtrace(\DEBUG_BACKTRACE_IGNORE_ARGS);
        $site = $this->siteOf($frames);
        if (isset($this->reported[$site])) {
            return;
        }
        $this->reported[$site] = true;
        $milliseconds = (\hrtime(true) - (int) $cells[BlockingWatchdog::SINCE]) / 1e6;
        $message = self::describe($this->userFrames($frames), $site, $milliseconds, $this->thresholdSeconds);
        $this->report !== null ? ($this->report)($message) : Log::warning($message);
    }

    /**
     * The site a report is about: the first frame in code that is not Petrel's (the APP's
     * call into a blocking API), else where it was interrupted.
     *
     * @param list<array<string, mixed>> $frames debug_backtrace(), the handler's own frame first
     */
    private function siteOf(array $frames): string
    {
        foreach ($frames as $frame) {
            $file = $frame['file'] ?? null;
            if (\is_string($file) && !$this->isPetrels($file)) {
                return "{$file}:" . (int) ($frame['line'] ?? 0);
            }
        }
        $first = $frames[0] ?? [];

        return (\is_string($first['file'] ?? null) ? $first['file'] : '?') . ':' . (int) ($first['line'] ?? 0);
    }

    /**
     * The stack down to the APP's outermost frame and one of Petrel's below it (the rest is
     * the server's, the same for every request).
     *
     * @param list<array<string, mixed>> $frames
     * @return list<array<string, mixed>>
     */
    private function userFrames(array $frames): array
    {
        $last = 0;
        foreach ($frames as $i => $frame) {
            if (\is_string($frame['file'] ?? null) && !$this->isPetrels($frame['file'])) {
                $last = $i;
            }
        }

        return \array_slice($frames, 0, $last + 2);
    }

    /**
     * Whether $file is the server's: Petrel's src/, or the bin/petrel that started the
     * worker and Composer's vendor/bin proxy of it. (The launcher at the bottom of every
     * stack counted as the APP's: each report listed the whole server, 30 frames deep.)
     */
    private function isPetrels(string $file): bool
    {
        return \str_starts_with($file, $this->petrelSource) || \str_starts_with($file, $this->petrelBin)
            || \str_ends_with(\dirname($file), \DIRECTORY_SEPARATOR . 'vendor' . \DIRECTORY_SEPARATOR . 'bin');
    }

    /**
     * The report: where, for how long, the stack, the source lines at the site, and advice.
     *
     * @param list<array<string, mixed>> $frames
     */
    public static function describe(array $frames, string $site, float $milliseconds, float $threshold): string
    {
        $lines = [\sprintf(
            'the event loop was blocked for %d ms (threshold %d ms) at %s: no other request of this worker was served meanwhile',
            $milliseconds,
            $threshold * 1000,
            $site,
        )];
        [$file, $line] = [\substr($site, 0, (int) \strrpos($site, ':')), (int) \substr($site, (int) \strrpos($site, ':') + 1)];
        $source = @\file($file, \FILE_IGNORE_NEW_LINES);
        if (\is_array($source) && $line > 0) {
            // The signal is handled at the next statement after a blocking C call returns: show the lines before too.
            for ($n = \max(1, $line - 2); $n <= $line; $n++) {
                $lines[] = \sprintf('  %s %4d | %s', $n === $line ? '>' : ' ', $n, \trim((string) ($source[$n - 1] ?? '')));
            }
        }
        $lines[] = '  stack:';
        foreach ($frames as $i => $frame) {
            $function = $frames[$i + 1]['function'] ?? '{main}';
            $class = $frames[$i + 1]['class'] ?? null;
            $lines[] = \sprintf('    #%d %s:%s %s', $i, $frame['file'] ?? '[internal]', $frame['line'] ?? '?', (\is_string($class) ? "{$class}::" : '') . (\is_string($function) ? $function : '?') . '()');
        }
        $lines[] = '  advice: blocking calls (sleep/usleep, PDO, file_get_contents of a URL, curl, a long CPU loop) stop the whole worker.'
            . ' Use Petrel\'s clients (Petrel\\sleep(), Petrel\\Database, Petrel\\Redis, Petrel\\Socket), move the work to a task worker'
            . ' (--task-workers, Petrel\\Task\\Tasks), or run this APP with --mode=sync. Reported once per call site; --block-threshold=0 turns this off.';

        return \implode("\n", $lines);
    }
}
