<?php

declare(strict_types=1);

namespace Petrel\Loop;

use Closure;

/**
 * A decorator that remembers where each watcher was created and, while the loop runs,
 * prints to STDERR every few seconds which referenced watchers keep it alive. Switched on
 * by PETREL_DEBUG=1; meant to explain a loop that will not exit. Costs a backtrace per
 * registration: never use it in production.
 *
 * Where a watcher was created is told by $describeCaller (frames, innermost first →
 * "function() at file:line"); by default the first frame outside src/Loop/. The
 * coroutine layer passes one that also skips its own frames.
 */
final class TracingDriver implements Driver
{
    /** @var array<int, string> */
    private array $origins = [];
    private ?int $reporter = null;

    /** @var resource */
    private mixed $output;
    private readonly Closure $describeCaller;

    /**
     * @param resource|null $output where reports go, STDERR by default
     * @param (Closure(array<int, array<string, mixed>>): string)|null $describeCaller
     */
    public function __construct(
        private readonly Driver $driver,
        private readonly float $reportInterval = 5.0,
        mixed $output = null,
        ?Closure $describeCaller = null,
    ) {
        $this->output = \is_resource($output) ? $output : \STDERR;
        $this->describeCaller = $describeCaller ?? self::callerOutsideLoop(...);
    }

    public function defer(Closure $callback): int
    {
        return $this->trace($this->driver->defer($callback));
    }

    public function delay(float $seconds, Closure $callback): int
    {
        return $this->trace($this->driver->delay($seconds, $callback));
    }

    public function repeat(float $interval, Closure $callback): int
    {
        return $this->trace($this->driver->repeat($interval, $callback));
    }

    public function onReadable(mixed $stream, Closure $callback): int
    {
        return $this->trace($this->driver->onReadable($stream, $callback));
    }

    public function onWritable(mixed $stream, Closure $callback): int
    {
        return $this->trace($this->driver->onWritable($stream, $callback));
    }

    public function onSignal(int $signal, Closure $callback): int
    {
        return $this->trace($this->driver->onSignal($signal, $callback));
    }

    public function enable(int $id): void
    {
        $this->driver->enable($id);
    }

    public function disable(int $id): void
    {
        $this->driver->disable($id);
    }

    public function cancel(int $id): void
    {
        $this->driver->cancel($id);
        unset($this->origins[$id]);
    }

    public function reference(int $id): void
    {
        $this->driver->reference($id);
    }

    public function unreference(int $id): void
    {
        $this->driver->unreference($id);
    }

    public function run(): void
    {
        if ($this->driver->isRunning()) {
            $this->driver->run(); // throws the driver's own "already running" error

            return;
        }
        $this->reporter = $this->driver->repeat($this->reportInterval, function (): void {
            \fwrite($this->output, "[petrel loop] still running; watchers keeping it alive:\n" . $this->describeReferenced());
        });
        $this->driver->unreference($this->reporter);
        try {
            $this->driver->run();
        } finally {
            $this->driver->cancel($this->reporter);
            $this->reporter = null;
        }
    }

    public function awaitReadable(int $id): bool
    {
        return $this->driver->awaitReadable($id);
    }

    public function stop(): void
    {
        $this->driver->stop();
    }

    public function isRunning(): bool
    {
        return $this->driver->isRunning();
    }

    public function now(): float
    {
        return $this->driver->now();
    }

    public function isReferenced(): bool
    {
        return $this->driver->isReferenced();
    }

    public function watchers(): array
    {
        $watchers = $this->driver->watchers();
        unset($watchers[$this->reporter ?? -1]);
        foreach ($watchers as $id => $watcher) {
            $watchers[$id]['detail'] .= ', created by ' . ($this->origins[$id] ?? 'an unknown place');
        }

        return $watchers;
    }

    public function describeReferenced(): string
    {
        $text = '';
        foreach ($this->watchers() as $id => $watcher) {
            if ($watcher['enabled'] && $watcher['referenced']) {
                $text .= "  #{$id} {$watcher['type']} {$watcher['detail']}\n";
            }
        }

        return $text === '' ? "  none\n" : $text;
    }

    private function trace(int $id): int
    {
        $this->origins[$id] = ($this->describeCaller)(\debug_backtrace(\DEBUG_BACKTRACE_IGNORE_ARGS, 12));

        return $id;
    }

    /** @param array<int, array<string, mixed>> $frames */
    private static function callerOutsideLoop(array $frames): string
    {
        foreach ($frames as $frame) {
            $file = $frame['file'] ?? null;
            if (\is_string($file) && !\str_starts_with($file, __DIR__ . \DIRECTORY_SEPARATOR)) {
                $class = \is_string($frame['class'] ?? null) ? $frame['class'] . '->' : '';
                $function = \is_string($frame['function'] ?? null) ? $frame['function'] : '?';
                $line = \is_int($frame['line'] ?? null) ? $frame['line'] : 0;

                return "{$class}{$function}() at {$file}:{$line}";
            }
        }

        return 'an unknown place';
    }
}
