<?php

declare(strict_types=1);

namespace Petrel\Coroutine\Internal;

use Petrel\Coroutine\Coroutine;
use Petrel\Loop\Driver;

/**
 * Builds the "everything is suspended" report: each unfinished coroutine and the call it
 * waits in, named by the first frame outside Petrel's own code (so the user sees their
 * file:line, not the scheduler's).
 *
 * @internal
 */
final class SuspendedReport
{
    /** @param array<int, Coroutine> $alive */
    public static function describe(Coroutine $main, array $alive, Driver $driver): string
    {
        $lines = [];
        if ($main->suspension !== null) {
            $lines[] = '  main  waiting in ' . self::callerOf(\debug_backtrace(\DEBUG_BACKTRACE_IGNORE_ARGS));
        }
        foreach ($alive as $id => $coroutine) {
            $where = 'running';
            if ($coroutine->suspension !== null && $coroutine->fiber !== null && $coroutine->fiber->isSuspended()) {
                $where = 'waiting in ' . self::callerOf((new \ReflectionFiber($coroutine->fiber))->getTrace(\DEBUG_BACKTRACE_IGNORE_ARGS));
            } elseif ($coroutine->child !== null) {
                $where = "waiting for its child #{$coroutine->child->id}";
            }
            if ($coroutine->origin !== null) {
                $where .= " (spawned by {$coroutine->origin})";
            }
            $lines[] = \sprintf('  #%-4d %s', $id, $where);
        }
        $count = \count($lines);
        $report = $count === 0 ? "No coroutine is suspended.\n" : "{$count} coroutine(s) suspended:\n" . \implode("\n", $lines) . "\n";
        $watchers = $driver->watchers();
        $referenced = \array_filter($watchers, static fn (array $w): bool => $w['enabled'] && $w['referenced']);
        $report .= \sprintf(
            "Loop: %d watcher(s), %d enabled and referenced%s\n",
            \count($watchers),
            \count($referenced),
            $driver->isRunning() ? ', loop running' : '',
        );

        return $report;
    }

    /**
     * "Class->method() at file:line" for the call that led into Petrel from outside it.
     *
     * @param array<int, array<string, mixed>> $frames innermost first, as debug_backtrace() gives them
     */
    public static function callerOf(array $frames): string
    {
        $src = \dirname(__DIR__, 2) . \DIRECTORY_SEPARATOR;
        $runtimeDirs = [$src . 'Coroutine' . \DIRECTORY_SEPARATOR, $src . 'Loop' . \DIRECTORY_SEPARATOR];
        $fallback = null;
        foreach ($frames as $frame) {
            $file = $frame['file'] ?? null;
            if (!\is_string($file)) {
                continue;
            }
            if ($fallback === null && !\str_starts_with($file, $runtimeDirs[0]) && !\str_starts_with($file, $runtimeDirs[1])) {
                $fallback = $frame;
            }
            if (!\str_starts_with($file, $src)) {
                return self::format($frame);
            }
        }

        return $fallback === null ? 'an unknown place' : self::format($fallback);
    }

    /** @param array<string, mixed> $frame */
    private static function format(array $frame): string
    {
        $type = \is_string($frame['type'] ?? null) ? $frame['type'] : '->';
        $class = \is_string($frame['class'] ?? null) ? $frame['class'] . $type : '';
        $function = \is_string($frame['function'] ?? null) ? $frame['function'] : '?';
        $line = \is_int($frame['line'] ?? null) ? $frame['line'] : 0;

        $file = \is_string($frame['file'] ?? null) ? $frame['file'] : '?';

        return "{$class}{$function}() at {$file}:{$line}";
    }
}
