<?php

declare(strict_types=1);

namespace Petrel\Bench\Internal;

/**
 * The progress line: scenario, point, run and time left. On a terminal it is rewritten
 * in place; in a log (CI) one line per point.
 */
final class Progress
{
    private readonly bool $terminal;
    private int $done = 0;
    /** Points done when the scenario whose points take turns began (see point()). */
    private int $started = 0;
    /**
     * Seconds gone on the points that take turns, which are all done only at the last
     * round: what moves the time left meanwhile.
     */
    private float $spent = 0.0;
    private float $left;

    /** @param resource $stream */
    public function __construct(private $stream, private readonly int $points, private readonly float $secondsPerPoint)
    {
        $this->terminal = \stream_isatty($stream);
        $this->left = $points * $secondsPerPoint;
    }

    /** @param int $number the point's number in its scenario when points take turns (0: the next one) */
    public function point(string $scenario, string $point, int $run, int $runs, int $number = 0): void
    {
        $number = $number > 0 ? $this->started + $number : $this->done + 1;
        $line = \sprintf('[%d/%d] %s · %s · run %d/%d · ~%s left', $number, $this->points, $scenario, $point, $run, $runs, self::duration($this->left));
        if ($this->terminal) {
            \fwrite($this->stream, "\r\033[K{$line}");
        } elseif ($run === 1) {
            \fwrite($this->stream, $line . "\n");
        }
    }

    /** A scenario whose points take turns begins: point() numbers them from here. */
    public function turnsBegin(): void
    {
        $this->started = $this->done;
        $this->spent = 0.0;
    }

    /** A run of a point that takes turns is over: $seconds of the time left are gone. */
    public function spent(float $seconds): void
    {
        $this->spent += $seconds;
        $this->estimate();
    }

    /** The scenario whose points take turns is over (its points advanced). */
    public function turnsEnd(): void
    {
        $this->spent = 0.0;
        $this->estimate();
    }

    /** A point is finished (measured, skipped or failed). */
    public function advance(): void
    {
        ++$this->done;
        $this->estimate();
    }

    /** A message on its own line (a skip, a failure). */
    public function say(string $message): void
    {
        \fwrite($this->stream, ($this->terminal ? "\r\033[K" : '') . $message . "\n");
    }

    public function finish(): void
    {
        if ($this->terminal) {
            \fwrite($this->stream, "\r\033[K");
        }
    }

    private function estimate(): void
    {
        $this->left = \max(0.0, ($this->points - $this->done) * $this->secondsPerPoint - $this->spent);
    }

    private static function duration(float $seconds): string
    {
        $seconds = (int) \ceil($seconds);

        return $seconds >= 60 ? \sprintf('%dm%02ds', \intdiv($seconds, 60), $seconds % 60) : "{$seconds}s";
    }
}
