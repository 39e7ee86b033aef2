<?php

declare(strict_types=1);

namespace Petrel\Loop\Internal;

use Petrel\Loop\LoopError;

/**
 * Signal watchers for a select()-based driver: pcntl's async handlers record the signal and
 * write a byte to a self-pipe, so a signal that arrives just before select() still wakes it;
 * dispatch() then runs the watchers in the loop, never inside the handler. The handler that
 * was in place before the first watcher of a signal is restored after the last one goes.
 *
 * @internal
 */
final class SignalDispatcher
{
    /** @var array<int, array<int, Watcher>> */
    private array $watchers = [];
    /** @var array<int, mixed> */
    private array $previousHandlers = [];
    /**
     * Signals arrived and not yet dispatched. Public so that a driver's tick checks it
     * without a call; only this class (and its handlers) write it.
     *
     * @var list<int>
     */
    public array $pending = [];
    /** @var array<int, resource>|null [read end, write end] */
    private ?array $pipe = null;

    public function add(Watcher $watcher): void
    {
        \assert(\is_int($watcher->value));
        $signal = $watcher->value;
        if (!isset($this->watchers[$signal])) {
            $this->install($signal);
        }
        $this->watchers[$signal][$watcher->id] = $watcher;
    }

    public function remove(Watcher $watcher): void
    {
        \assert(\is_int($watcher->value));
        $signal = $watcher->value;
        unset($this->watchers[$signal][$watcher->id]);
        if (($this->watchers[$signal] ?? []) === []) {
            unset($this->watchers[$signal]);
            $previous = $this->previousHandlers[$signal] ?? \SIG_DFL;
            unset($this->previousHandlers[$signal]);
            \pcntl_signal($signal, \is_int($previous) || \is_callable($previous) ? $previous : \SIG_DFL);
        }
    }

    /**
     * The read end of the self-pipe, to add to select()'s read set; null without watchers.
     *
     * @return resource|null
     */
    public function pipe(): mixed
    {
        return $this->pipe[0] ?? null;
    }

    /** Empties the self-pipe and runs the watchers of the signals that arrived. */
    public function dispatch(): void
    {
        if ($this->pending === []) {
            return;
        }
        if ($this->pipe !== null) {
            \fread($this->pipe[0], 1024);
        }
        while (($signal = \array_shift($this->pending)) !== null) {
            foreach ($this->watchers[$signal] ?? [] as $watcher) {
                if ($watcher->enabled) {
                    ($watcher->callback)($watcher->id, $signal);
                }
            }
        }
    }

    private function install(int $signal): void
    {
        if ($this->pipe === null) {
            $pair = \stream_socket_pair(\STREAM_PF_UNIX, \STREAM_SOCK_STREAM, \STREAM_IPPROTO_IP);
            if ($pair === false) {
                throw new LoopError('Could not create the self-pipe for signal handling');
            }
            \stream_set_blocking($pair[0], false);
            \stream_set_blocking($pair[1], false);
            $this->pipe = $pair;
        }
        \pcntl_async_signals(true);
        $this->previousHandlers[$signal] = \pcntl_signal_get_handler($signal);
        $pipe = $this->pipe[1];
        \pcntl_signal($signal, function (int $signal) use ($pipe): void {
            $this->pending[] = $signal;
            @\fwrite($pipe, '.');
        });
    }
}
