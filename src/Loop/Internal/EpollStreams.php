<?php

declare(strict_types=1);

namespace Petrel\Loop\Internal;

use FFI;
use FFI\CData;
use Petrel\Loop\LoopError;
use Petrel\Loop\TickCounter;

/**
 * The stream side of EpollDriver: per watched stream, a descriptor of our own (see
 * DescriptorChannel), the enabled readable/writable watchers, and the epoll interest,
 * which follows the union of those watchers (ADD/MOD/DEL only when it changes; read
 * interest is dropped lazily, see update()).
 * The descriptor is closed when the stream's last watcher is cancelled. Once a second (and
 * when run() starts) sweep() closes the descriptors of streams closed while watched.
 *
 * Fork: everything here belongs to the process that made it. In another process (a
 * forked child) nothing touches the inherited epoll instance: release() closes this
 * process's copies of the descriptors; if the driver is used on, rebuild() makes a new
 * instance and channel and re-registers every stream. Each wait checks for a fork by
 * reading $mark, a byte the kernel zeroes in a child: no syscall per wait.
 *
 * Why one class of ~430 lines: the maps above, the fork state and the descriptor channel
 * are read by every wait, the in-place wait (awaitReadable()) and every watcher change;
 * split apart, each wait and each event would pay calls across the split, on the loop's
 * hottest path.
 *
 * @internal
 */
final class EpollStreams implements StreamWaiter
{
    private const READ_EVENTS = Epoll::IN | Epoll::ERR | Epoll::HUP;
    private const WRITE_EVENTS = Epoll::OUT | Epoll::ERR | Epoll::HUP;

    /** @var array<int, resource> stream by key ((int) $stream) */
    private array $streams = [];
    /** @var array<int, int> our descriptor by key, -1 once released */
    private array $fds = [];
    /** @var array<int, int> key by our descriptor */
    private array $keys = [];
    /** @var array<int, int> watchers (enabled or not) by key */
    private array $users = [];
    /** @var array<int, int> epoll interest by key */
    private array $masks = [];
    /** @var array<int, array<int, Watcher>> enabled readable watchers by key */
    private array $read = [];
    /** @var array<int, array<int, Watcher>> enabled writable watchers by key */
    private array $write = [];
    /** @var list<int> descriptors released while events are dispatched, closed after */
    private array $closeLater = [];
    private bool $dispatching = false;
    /** When wait() next sweeps (monotonic seconds). */
    private float $nextSweep = 0.0;
    /** Our descriptor of the signals' self-pipe, once registered. */
    private ?int $signalPipe = null;
    /** @var resource|null the signals' self-pipe, once a signal watcher made it */
    private mixed $signalStream = null;
    private Epoll $epoll;
    /** Where awaitReadable() lets epoll_wait() write (two events at most): not $epoll->events, which a wait may be dispatching. */
    private readonly CData $fewEvents;
    private DescriptorChannel $channel;
    /**
     * 1 while this process owns the instance, 0 in a forked child or after abandon() (see
     * Libc::forkMark()): the fork check of every wait, without getmypid()'s syscall.
     * Null on kernels without MADV_WIPEONFORK, which compare $pid instead.
     */
    private ?CData $mark;
    private int $pid;

    public function __construct(private readonly FFI $ffi)
    {
        $this->pid = (int) \getmypid();
        $this->mark = Libc::forkMark($ffi);
        $this->epoll = new Epoll($ffi);
        $this->channel = new DescriptorChannel($ffi);
        $fewEvents = $ffi->new('uint32_t[8]');
        \assert($fewEvents instanceof CData);
        $this->fewEvents = $fewEvents;
    }

    public function __destruct()
    {
        $this->release();
        if ($this->mark !== null) {
            Libc::unmap($this->ffi, $this->mark);
        }
    }

    /** Counts a new watcher of $watcher's stream; the first one gets the stream a descriptor. */
    public function attach(Watcher $watcher): void
    {
        $key = (int) $watcher->value;
        if (isset($this->users[$key])) {
            $this->users[$key]++;

            return;
        }
        $this->checkPid();
        \assert(\is_resource($watcher->value));
        $fd = $this->channel->duplicate($watcher->value);
        $this->streams[$key] = $watcher->value;
        $this->fds[$key] = $fd;
        $this->keys[$fd] = $key;
        $this->users[$key] = 1;
        $this->masks[$key] = 0;
    }

    /** Uncounts a cancelled (and already disabled) watcher; the last one closes the descriptor. */
    public function detach(Watcher $watcher): void
    {
        $key = (int) $watcher->value;
        if (--$this->users[$key] > 0) {
            return;
        }
        $this->forget($key);
        unset($this->users[$key], $this->streams[$key], $this->masks[$key], $this->fds[$key]);
    }

    public function enable(Watcher $watcher): void
    {
        $key = (int) $watcher->value;
        if ($watcher->type === Watcher::READABLE) {
            $this->read[$key][$watcher->id] = $watcher;
        } else {
            $this->write[$key][$watcher->id] = $watcher;
        }
        $this->update($key);
    }

    public function disable(Watcher $watcher): void
    {
        $key = (int) $watcher->value;
        if ($watcher->type === Watcher::READABLE) {
            unset($this->read[$key][$watcher->id]);
            if ($this->read[$key] === []) {
                unset($this->read[$key]);
            }
        } else {
            unset($this->write[$key][$watcher->id]);
            if ($this->write[$key] === []) {
                unset($this->write[$key]);
            }
        }
        $this->update($key);
    }

    public function describe(Watcher $watcher): string
    {
        return 'stream #' . (int) $watcher->value . ', fd ' . ($this->fds[(int) $watcher->value] ?? -1);
    }

    /** Registered with epoll by the next wait(). */
    public function useSignalPipe(mixed $pipe): void
    {
        $this->signalStream ??= $pipe;
    }

    /**
     * Waits until $until or the next sweep, whichever comes first, then runs the callbacks
     * of ready streams: readable ones, then writable ones. The hot loop of the server: two
     * word reads and a few array lookups per event, nothing allocated unless a stream is
     * writable, and no call for signals unless one arrived.
     */
    public function wait(float $until, SignalDispatcher $signals): void
    {
        $now = \hrtime(true) * 1e-9;
        if ($now >= $this->nextSweep) {
            $this->sweep();
        }
        if ($until > $this->nextSweep) {
            $until = $this->nextSweep;
        }
        if ($this->mark !== null ? $this->mark[0] === 0 : $this->pid !== \getmypid()) {
            $this->rebuild();
        }
        if ($this->signalPipe === null && $this->signalStream !== null) {
            $this->signalPipe = $this->channel->duplicate($this->signalStream);
            $this->epoll->change($this->signalPipe, 0, Epoll::IN);
        }
        // The epoll_wait() itself, here rather than behind a method of Epoll: a call less per
        // wait. So are TickCounter::waiting() and running() (see TickCounter).
        $epoll = $this->epoll;
        $events = $epoll->events;
        if (($cell = TickCounter::$cell) !== null) {
            $cell[0] = ++TickCounter::$count;
        }
        /** @phpstan-ignore-next-line FFI call */
        $count = $this->ffi->epoll_wait($epoll->fd, $events, Epoll::MAX_EVENTS, $until <= $now ? 0 : (int) \ceil(($until - $now) * 1000));
        if (($cell = TickCounter::$cell) !== null) {
            $cell[0] = ++TickCounter::$count;
        }
        if ($count < 0) {
            // errno now, before anything else can set it: a signal's callback below may make
            // a Fiber (whose stack naming, prctl(), fails with EINVAL on some kernels) or
            // fail a syscall, and an interrupted wait (EINTR) would then look fatal.
            $epoll->checkWaitError();
        }
        if ($signals->pending !== []) {
            $signals->dispatch();
        }
        if ($count <= 0) {
            return;
        }
        $stride = $epoll->stride;
        $dataWord = $epoll->dataWord;
        $writable = [];
        $this->dispatching = true;
        try {
            for ($i = 0, $word = 0; $i < $count; $i++, $word += $stride) {
                $key = $this->keys[$events[$word + $dataWord]] ?? null;
                if ($key === null) {
                    continue; // the signal pipe, or a descriptor released during this loop
                }
                $mask = $events[$word];
                if ($mask & self::WRITE_EVENTS && isset($this->write[$key])) {
                    $writable[] = $key;
                }
                if ($mask & self::READ_EVENTS) {
                    if (!isset($this->read[$key])) {
                        $this->update($key, false); // the read interest update() left behind
                        continue;
                    }
                    $stream = $this->streams[$key];
                    if (!\is_resource($stream)) {
                        throw self::closedError();
                    }
                    // $more (see Driver): another event follows, or a writable one is due.
                    $more = $i + 1 < $count || $writable !== [];
                    foreach ($this->read[$key] as $watcher) {
                        if ($watcher->enabled) {
                            ($watcher->callback)($watcher->id, $stream, $more);
                        }
                    }
                }
            }
            $left = \count($writable);
            foreach ($writable as $key) {
                $stream = $this->streams[$key] ?? null;
                --$left;
                foreach ($this->write[$key] ?? [] as $watcher) {
                    if ($watcher->enabled) {
                        ($watcher->callback)($watcher->id, \is_resource($stream) ? $stream : throw self::closedError(), $left > 0);
                    }
                }
            }
        } finally {
            $this->dispatching = false;
            if ($this->closeLater !== []) {
                foreach ($this->closeLater as $fd) {
                    $this->channel->close($fd);
                }
                $this->closeLater = [];
            }
        }
    }

    /**
     * The wait of Driver::awaitReadable() (WatcherLoop checked its queues): one epoll_wait()
     * on the whole interest set, bounded like the loop's own by $until and the next sweep,
     * into a buffer of its own. True if it reports $watcher's stream alone (readable, or
     * hung up or failed, which a read then reports).
     * Anything else (another stream ready: level-triggered, the loop's next wait reports it
     * again; a signal; the time up) is false, and the loop takes over. Also false while
     * descriptors released during a dispatch wait to be closed: only the loop closes them.
     */
    public function awaitReadable(Watcher $watcher, float $until, SignalDispatcher $signals): bool
    {
        $key = (int) $watcher->value;
        $now = \hrtime(true) * 1e-9;
        if ($now >= $this->nextSweep) {
            $this->sweep();
        }
        if ($until > $this->nextSweep) {
            $until = $this->nextSweep;
        }
        // Interest in reading alone: then any event epoll reports for the stream (IN, ERR, HUP)
        // means a read will not block, and only the event's descriptor needs reading back.
        if ($until <= $now || $this->masks[$key] !== Epoll::IN || isset($this->write[$key]) || $this->closeLater !== []
            || $signals->pending !== [] || ($this->signalPipe === null && $this->signalStream !== null)
            || ($this->mark !== null ? $this->mark[0] === 0 : $this->pid !== \getmypid())
        ) {
            return false;
        }
        $events = $this->fewEvents;
        if (($cell = TickCounter::$cell) !== null) {
            $cell[0] = ++TickCounter::$count;
        }
        /** @phpstan-ignore-next-line FFI call */
        $count = $this->ffi->epoll_wait($this->epoll->fd, $events, 2, (int) \ceil(($until - $now) * 1000));
        if (($cell = TickCounter::$cell) !== null) {
            $cell[0] = ++TickCounter::$count;
        }

        return $count === 1 && $events[$this->epoll->dataWord] === $this->fds[$key];
    }

    /**
     * The safety net for streams closed while watched: our descriptor would keep the
     * connection open (the peer sees no FIN). Closes the descriptors of closed streams;
     * throws LoopError (as the select driver does) if one of them has an enabled watcher.
     */
    public function sweep(): void
    {
        $this->nextSweep = \hrtime(true) * 1e-9 + 1.0;
        $error = false;
        foreach ($this->streams as $key => $stream) {
            if (\is_resource($stream)) {
                continue;
            }
            $this->forget($key);
            $this->fds[$key] = -1;
            $this->masks[$key] = 0;
            $error = $error || isset($this->read[$key]) || isset($this->write[$key]);
        }
        if ($error) {
            throw self::closedError();
        }
    }

    /**
     * Closes this process's descriptors: every stream's and the epoll instance (no
     * epoll_ctl: in a forked child the instance is the parent's too).
     */
    public function release(): void
    {
        foreach ($this->fds as $key => $fd) {
            if ($fd >= 0) {
                $this->channel->close($fd);
                $this->fds[$key] = -1;
                $this->masks[$key] = 0;
            }
        }
        if ($this->signalPipe !== null) {
            $this->channel->close($this->signalPipe);
            $this->signalPipe = null;
        }
        $this->keys = [];
        $this->epoll->close();
    }

    /** release(), and the next use registers every stream anew (as in a forked child). */
    public function abandon(): void
    {
        $this->release();
        $this->pid = -1;
        if ($this->mark !== null) {
            $this->mark[0] = 0;
        }
    }

    /**
     * Brings $key's epoll interest to the union of its enabled watchers, except that read
     * interest no longer wanted is left registered when $lazy: a client socket disables its
     * read watcher after each reply and enables it for the next one, and leaving the
     * interest saves two epoll_ctl() calls per round trip. If bytes (or a hang-up) arrive
     * with nobody reading, wait() drops the interest then, so the loop never spins on them.
     */
    private function update(int $key, bool $lazy = true): void
    {
        $mask = (isset($this->read[$key]) ? Epoll::IN : 0) | (isset($this->write[$key]) ? Epoll::OUT : 0);
        if ($mask === $this->masks[$key] || $this->fds[$key] < 0 || ($lazy && ($mask | Epoll::IN) === $this->masks[$key])) {
            return;
        }
        $this->checkPid(); // may rebuild, which resets the masks
        if ($mask === $this->masks[$key]) {
            return;
        }
        $this->epoll->change($this->fds[$key], $this->masks[$key], $mask);
        $this->masks[$key] = $mask;
    }

    /** Takes $key's descriptor out of epoll and closes it (after dispatch if dispatching). */
    private function forget(int $key): void
    {
        if ($this->fds[$key] < 0) {
            return;
        }
        if ($this->masks[$key] !== 0) {
            $this->checkPid(); // may rebuild: new descriptor, mask
            if ($this->masks[$key] !== 0) {
                $this->epoll->change($this->fds[$key], $this->masks[$key], 0);
            }
        }
        $fd = $this->fds[$key];
        unset($this->keys[$fd]);
        if ($this->dispatching) {
            $this->closeLater[] = $fd;
        } else {
            $this->channel->close($fd);
        }
    }

    private function checkPid(): void
    {
        if ($this->mark !== null ? $this->mark[0] === 0 : $this->pid !== \getmypid()) {
            $this->rebuild();
        }
    }

    /** In a forked child: drop what was inherited, then register every stream anew. */
    private function rebuild(): void
    {
        $this->release();
        $this->pid = (int) \getmypid();
        if ($this->mark !== null) {
            $this->mark[0] = 1;
        }
        $this->epoll = new Epoll($this->ffi);
        $this->channel = new DescriptorChannel($this->ffi);
        foreach ($this->streams as $key => $stream) {
            if (!\is_resource($stream)) {
                continue; // sweep() reports it
            }
            $fd = $this->channel->duplicate($stream);
            $this->fds[$key] = $fd;
            $this->keys[$fd] = $key;
            $this->update($key);
        }
    }

    private static function closedError(): LoopError
    {
        return new LoopError('A stream watched by the loop was closed while its watcher was still registered; '
            . 'cancel the watcher before closing the stream');
    }
}
