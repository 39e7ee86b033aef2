<?php

declare(strict_types=1);

namespace Petrel\Observability;

use Closure;
use Petrel\Loop\TickCounter;
use Petrel\Observability\Internal\SharedMemory;

/**
 * Finds the code that blocks a worker's event loop: while one callback (a request's
 * coroutine, a timer) runs for longer than the threshold without giving the loop back, the
 * worker is serving nobody else. Reports it once per call site, with the file:line, the
 * stack and what to do instead.
 *
 * How, without threads: the loop publishes a tick counter in shared memory (Loop\
 * TickCounter: odd while it waits for I/O, even while callbacks run; two ~6 ns writes a
 * tick). A watchdog process forked from the worker reads it every threshold/4; when the
 * count stays even and unchanged for the threshold, it sends the worker one SIGALRM. PHP's
 * async signal handler then runs *inside* the blocked code, where debug_backtrace() shows
 * it: at once in a CPU loop, and as soon as a blocking C call returns (PDO, a stream read:
 * they resume after the signal; `sleep()`/`usleep()` do not, so one that already blocked
 * the loop for the threshold is cut short there). Healthy code never sees a signal: one
 * is sent only per blocking episode, only past the threshold.
 *
 * Not for --mode=sync, where blocking is the model.
 */
final class BlockingDetector
{
    /** Cells: 0 the tick count (TickCounter), 1 the count the watchdog signalled for, 2 since when (hrtime ns). */
    private const CELLS = 3;

    /** Blocking episodes seen (each report, and repeats of a reported site). */
    public int $episodes = 0;
    /** @var array<string, true> sites reported */
    private array $reported = [];
    private ?SharedMemory $memory = null;
    private readonly string $petrelSource;

    /**
     * @param Closure(string): void|null $report where a report goes; Log::warning() by default
     */
    public function __construct(
        public readonly float $thresholdSeconds,
        private readonly ?Closure $report = null,
        private readonly string $title = 'petrel',
    ) {
        if ($thresholdSeconds <= 0) {
            throw new \InvalidArgumentException("The threshold must be > 0 s, got {$thresholdSeconds}");
        }
        $this->petrelSource = \dirname(__DIR__) . \DIRECTORY_SEPARATOR;
    }

    /**
     * Starts the watchdog and the signal handler in this (worker) process. Returns why it
     * could not (no FFI, no fork), or null when it runs.
     */
    public function start(): ?string
    {
        try {
            $this->memory = new SharedMemory(self::CELLS);
        } catch (\RuntimeException $error) {
            return "the blocking detector is off: {$error->getMessage()}";
        }
        $cells = $this->memory->cells;
        $cells[0] = TickCounter::$count;
        TickCounter::$cell = $cells;
        $worker = (int) \getmypid();
        $pid = \pcntl_fork();
        if ($pid === -1) {
            TickCounter::$cell = null;

            return 'the blocking detector is off: fork() failed';
        }
        if ($pid === 0) {
            $this->watch($worker, $cells); // never returns
        }
        \pcntl_async_signals(true);
        \pcntl_signal(\SIGALRM, $this->onAlarm(...));

        return null;
    }

    /** In the watchdog process: polls the tick count until the worker is gone, then dies quietly. */
    private function watch(int $worker, \FFI\CData $cells): never
    {
        foreach ([\SIGTERM, \SIGINT, \SIGUSR1, \SIGUSR2, \SIGHUP, \SIGALRM] as $signal) {
            \pcntl_signal($signal, \SIG_IGN); // only the worker's end stops it
        }
        SharedMemory::closeInheritedDescriptors(); // the listening socket must not outlive the worker here
        @\cli_set_process_title("{$this->title}: watchdog of pid {$worker}");
        $period = (int) \max(1000, $this->thresholdSeconds * 250_000);
        $threshold = (int) ($this->thresholdSeconds * 1e9);
        $seen = -1;
        $since = 0;
        $signalled = -1;
        while (\posix_getppid() === $worker) {
            \usleep($period);
            $count = (int) $cells[0];
            $now = \hrtime(true);
            if ($count % 2 === 1 || $count !== $seen) {
                $seen = $count;
                $since = $now;
            } elseif ($count !== $signalled && $now - $since >= $threshold) {
                $cells[1] = $count;
                $cells[2] = $since;
                $signalled = $count;
                \posix_kill($worker, \SIGALRM);
            }
        }
        \posix_kill((int) \getmypid(), \SIGKILL); // no shutdown functions: they are the worker's
        exit(0);
    }

    /** The async SIGALRM handler: runs inside the blocked code. */
    private function onAlarm(): void
    {
        $cells = TickCounter::$cell;
        if ($cells === null || TickCounter::isWaiting() || (int) $cells[1] !== TickCounter::$count) {
            return; // the loop moved on between the watchdog's look and the signal
        }
        ++$this->episodes;
        $frames = \debug_backtrace(\DEBUG_BACKTRACE_IGNORE_ARGS);
        $site = $this->siteOf($frames);
        if (isset($this->reported[$site])) {
            return;
        }
        $this->reported[$site] = true;
        $milliseconds = (\hrtime(true) - (int) $cells[2]) / 1e6;
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
            if (\is_string($file) && !\str_starts_with($file, $this->petrelSource)) {
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
            if (\is_string($frame['file'] ?? null) && !\str_starts_with($frame['file'], $this->petrelSource)) {
                $last = $i;
            }
        }

        return \array_slice($frames, 0, $last + 2);
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
