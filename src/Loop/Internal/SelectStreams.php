<?php

declare(strict_types=1);

namespace Petrel\Loop\Internal;

use Petrel\Loop\LoopError;
use Petrel\Loop\TickCounter;

/**
 * The stream side of StreamSelectDriver: the streams with enabled readable or writable
 * watchers, handed to stream_select() in each wait (or usleep() when there are none). A
 * stream closed while watched makes stream_select() fail, which is reported as LoopError.
 *
 * @internal
 */
final class SelectStreams implements StreamWaiter
{
    /**
     * The longest wait, in seconds: a timer due in 1e13 s or more (PHP_INT_MAX, 1e300:
     * "never") would overflow the integers usleep() and stream_select() take, wrapping to a
     * negative time (a ValueError) or to 0 (a spin). The loop just waits again.
     */
    private const MAX_WAIT = 3600.0;

    /** @var array<int, resource> */
    private array $readStreams = [];
    /** @var array<int, array<int, Watcher>> */
    private array $readWatchers = [];
    /** @var array<int, resource> */
    private array $writeStreams = [];
    /** @var array<int, array<int, Watcher>> */
    private array $writeWatchers = [];
    /** @var resource|null the signals' self-pipe, once a signal watcher made it */
    private mixed $signalPipe = null;

    public function attach(Watcher $watcher): void
    {
    }

    public function detach(Watcher $watcher): void
    {
    }

    public function enable(Watcher $watcher): void
    {
        $key = (int) $watcher->value;
        if ($watcher->type === Watcher::READABLE) {
            $this->readStreams[$key] = $watcher->value;
            $this->readWatchers[$key][$watcher->id] = $watcher;
        } else {
            $this->writeStreams[$key] = $watcher->value;
            $this->writeWatchers[$key][$watcher->id] = $watcher;
        }
    }

    public function disable(Watcher $watcher): void
    {
        $key = (int) $watcher->value;
        if ($watcher->type === Watcher::READABLE) {
            unset($this->readWatchers[$key][$watcher->id]);
            if (!isset($this->readWatchers[$key]) || $this->readWatchers[$key] === []) {
                unset($this->readWatchers[$key], $this->readStreams[$key]);
            }
        } else {
            unset($this->writeWatchers[$key][$watcher->id]);
            if (!isset($this->writeWatchers[$key]) || $this->writeWatchers[$key] === []) {
                unset($this->writeWatchers[$key], $this->writeStreams[$key]);
            }
        }
    }

    public function useSignalPipe(mixed $pipe): void
    {
        $this->signalPipe ??= $pipe;
    }

    /** Nothing to do: stream_select() itself fails on a closed stream. */
    public function sweep(): void
    {
    }

    public function describe(Watcher $watcher): string
    {
        return 'stream #' . (int) $watcher->value;
    }

    /** Always false: a select() of one stream would cost as much as the loop's next one. */
    public function awaitReadable(Watcher $watcher, float $until, SignalDispatcher $signals): bool
    {
        return false;
    }

    /**
     * select(2) takes descriptors below FD_SETSIZE only; given one past it stream_select()
     * fails at once, every time, and a loop that took that for a timeout would spin at
     * 100 % CPU serving nothing. Fails the loop instead, saying why (a false return always
     * comes with its warning, so the last error is this call's).
     *
     * @throws LoopError
     */
    private static function failPastSetSize(): void
    {
        $message = \error_get_last()['message'] ?? '';
        if (\str_contains($message, 'FD_SETSIZE')) {
            throw new LoopError(\sprintf(
                'The select loop driver cannot watch a descriptor numbered 1,024 or higher (FD_SETSIZE; %s): '
                . 'the process holds too many open files and sockets. Use the epoll driver, or fewer connections per worker',
                \preg_match('/as high as (\d+)/', $message, $m) === 1 ? "this one is {$m[1]}" : 'see stream_select()',
            ));
        }
    }

    /** stream_select() on the watched streams and the signals' self-pipe; usleep() without any. */
    public function wait(float $until, SignalDispatcher $signals): void
    {
        $read = $this->readStreams;
        $write = $this->writeStreams;
        if ($this->signalPipe !== null) {
            $read[-1] = $this->signalPipe;
        }
        $timeout = null;
        if ($until !== \INF) {
            $timeout = $until - \hrtime(true) * 1e-9;
            if ($timeout < 0.0) {
                $timeout = 0.0;
            } elseif ($timeout > self::MAX_WAIT) {
                $timeout = self::MAX_WAIT;
            }
        }
        if ($read === [] && $write === []) {
            if ($timeout === null || $timeout > 0) {
                if (TickCounter::$cell !== null) {
                    TickCounter::waiting();
                }
                \usleep((int) (($timeout ?? self::MAX_WAIT) * 1e6));
                if (TickCounter::$cell !== null) {
                    TickCounter::running();
                }
            }
            if ($signals->pending !== []) {
                $signals->dispatch();
            }

            return;
        }
        $seconds = $timeout === null ? null : (int) $timeout;
        $micro = $timeout === null ? 0 : (int) (($timeout - $seconds) * 1e6);
        $except = null;
        try {
            if (TickCounter::$cell !== null) {
                TickCounter::waiting();
            }
            $ready = @\stream_select($read, $write, $except, $seconds, $micro);
            if (TickCounter::$cell !== null) {
                TickCounter::running();
            }
        } catch (\TypeError | \ValueError $error) {
            throw new LoopError(
                'A stream watched by the loop was closed while its watcher was still registered; '
                . 'cancel the watcher before closing the stream (' . $error->getMessage() . ')',
                0,
                $error,
            );
        }
        if ($signals->pending !== []) {
            $signals->dispatch();
        }
        if (!$ready) {
            if ($ready === false) {
                self::failPastSetSize(); // else interrupted by a signal (EINTR)
            }

            return; // timeout
        }
        unset($read[-1]);
        $left = \count($read) + \count($write); // for $more (see Driver)
        foreach ($read as $key => $stream) {
            --$left;
            foreach ($this->readWatchers[$key] ?? [] as $watcher) {
                if ($watcher->enabled) {
                    ($watcher->callback)($watcher->id, $stream, $left > 0);
                }
            }
        }
        foreach ($write as $key => $stream) {
            --$left;
            foreach ($this->writeWatchers[$key] ?? [] as $watcher) {
                if ($watcher->enabled) {
                    ($watcher->callback)($watcher->id, $stream, $left > 0);
                }
            }
        }
    }
}
