<?php

declare(strict_types=1);

namespace Petrel\Loop;

use Petrel\Loop\Internal\SelectStreams;
use Petrel\Loop\Internal\WatcherLoop;
use Petrel\Loop\Internal\WatcherLoopDriver;

/**
 * The always-available driver, on stream_select(). select(2) caps a process near 1,020
 * descriptors (FD_SETSIZE), which is why the HTTP server limits connections per worker.
 * Signals use pcntl's async handlers plus a self-pipe, so a signal that arrives just before
 * select() still wakes it.
 *
 * The watchers, timers, signals and ticks are Internal\WatcherLoop's, as for every driver
 * (Internal\WatcherLoopDriver); this one waits for streams with Internal\SelectStreams.
 */
final class StreamSelectDriver extends WatcherLoopDriver
{
    public function __construct()
    {
        parent::__construct(new WatcherLoop(new SelectStreams()));
    }
}
