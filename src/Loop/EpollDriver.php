<?php

declare(strict_types=1);

namespace Petrel\Loop;

use Petrel\Loop\Internal\EpollStreams;
use Petrel\Loop\Internal\Libc;
use Petrel\Loop\Internal\WatcherLoop;
use Petrel\Loop\Internal\WatcherLoopDriver;

/**
 * A Linux epoll driver through FFI: no descriptor limit but RLIMIT_NOFILE, and the cost of
 * a wait grows with the number of ready streams, not of watched ones. Level-triggered, as
 * Driver specifies: a readable watcher runs in each tick in which its stream is readable.
 *
 * Descriptors. Each watched stream gets a descriptor of the driver's own, a duplicate
 * (see Internal\DescriptorChannel and docs/event-loop.md), closed when the stream's last
 * watcher is cancelled: a watched connection costs two descriptors. Cancel watchers
 * before closing their stream (as Driver requires): until then the duplicate keeps the
 * connection open and the peer sees no FIN. As a safety net, every second (and when run()
 * starts) the driver closes the duplicates of closed streams, and throws LoopError if one
 * had an enabled watcher, as StreamSelectDriver does.
 *
 * PHP's read buffer. epoll sees the kernel's buffer only; stream_select() also reports a
 * stream whose PHP-level read buffer holds data. A caller that reads with fgets()/fread()
 * on a buffered stream must drain what PHP buffered before it waits again, or disable the
 * buffer with stream_set_read_buffer($stream, 0) (StreamSocket does). EOF and errors are
 * reported by the kernel and always wake a readable watcher.
 *
 * Fork: a child never touches the parent's epoll instance; the first use of this driver
 * in a child (or release()) closes the inherited descriptors, and a driver used on in
 * the child registers its streams on an instance of its own.
 *
 * The watchers, timers, signals and ticks are Internal\WatcherLoop's, as for every driver
 * (Internal\WatcherLoopDriver); this one waits for streams with Internal\EpollStreams.
 */
final class EpollDriver extends WatcherLoopDriver
{
    private readonly EpollStreams $streams;

    /** @var \WeakMap<self, int>|null live drivers and the pid that made each */
    private static ?\WeakMap $instances = null;

    /**
     * A driver made in a forked child first releases the descriptors that drivers of the
     * parent left in this process (Scheduler::reset() after fork()), so they cannot keep
     * the parent's connections and pipes open.
     *
     * @throws LoopError if epoll through FFI is not available here (with the reason)
     */
    public function __construct()
    {
        $pid = (int) \getmypid();
        self::$instances ??= new \WeakMap();
        foreach (self::$instances as $driver => $owner) {
            if ($owner !== $pid) {
                $driver->release();
                self::$instances[$driver] = $pid; // released once; if used on, it rebuilds
            }
        }
        self::$instances[$this] = $pid;
        $this->streams = new EpollStreams(Libc::ffi());
        parent::__construct(new WatcherLoop($this->streams));
    }

    /** Null if this driver works in this process, else why not, in one line. */
    public static function unavailableReason(): ?string
    {
        return Libc::unavailableReason();
    }

    /**
     * Closes the driver's descriptors now, without touching the epoll instance's
     * registrations (it may be shared with a parent process). A driver used after
     * release() registers its streams anew.
     */
    public function release(): void
    {
        $this->streams->abandon();
    }
}
