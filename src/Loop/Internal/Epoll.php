<?php

declare(strict_types=1);

namespace Petrel\Loop\Internal;

use FFI;
use FFI\CData;
use Petrel\Loop\LoopError;

/**
 * One epoll instance (level-triggered) through FFI, owned by the process that made it.
 *
 * struct epoll_event is 12 bytes on x86-64 (packed: events at 0, data at 4) and 16 bytes
 * elsewhere (data at 8). Both buffers are uint32 word arrays, so reading an event is two
 * array reads that return PHP ints: no CData object per event. `data` holds the fd.
 *
 * @internal
 */
final class Epoll
{
    public const IN = 0x001;
    public const OUT = 0x004;
    public const ERR = 0x008;
    public const HUP = 0x010;
    public const MAX_EVENTS = 1024;

    private const CTL_ADD = 1;
    private const CTL_DEL = 2;
    private const CTL_MOD = 3;
    private const CLOEXEC = 0x80000;
    private const EINTR = 4;

    /** Words per event in $events (3 packed, 4 aligned). */
    public readonly int $stride;
    /** Word index of `data` (the fd) inside an event. */
    public readonly int $dataWord;
    /** Where epoll_wait() writes the ready events: uint32_t[stride * MAX_EVENTS]. */
    public readonly CData $events;
    private CData $event;
    /** The instance's descriptor, -1 once closed; public for EpollStreams::wait(), only this class writes it. */
    public int $fd;

    public function __construct(private readonly FFI $ffi)
    {
        $packed = \php_uname('m') === 'x86_64';
        $this->stride = $packed ? 3 : 4;
        $this->dataWord = $packed ? 1 : 2;
        $events = $ffi->new('uint32_t[' . ($this->stride * self::MAX_EVENTS) . ']');
        $event = $ffi->new('uint32_t[4]');
        \assert($events instanceof CData && $event instanceof CData);
        $this->events = $events;
        $this->event = $event;
        /** @phpstan-ignore-next-line FFI call */
        $this->fd = (int) $ffi->epoll_create1(self::CLOEXEC);
        if ($this->fd < 0) {
            throw new LoopError('epoll_create1() failed, errno ' . Libc::errno($ffi));
        }
    }

    /** Sets the events watched on $fd: from $old (0 = not registered) to $new (0 = remove). */
    public function change(int $fd, int $old, int $new): void
    {
        $op = $old === 0 ? self::CTL_ADD : ($new === 0 ? self::CTL_DEL : self::CTL_MOD);
        $this->event[0] = $new;
        $this->event[$this->dataWord] = $fd;
        /** @phpstan-ignore-next-line FFI call */
        if ($this->ffi->epoll_ctl($this->fd, $op, $fd, $this->event) !== 0) {
            $errno = Libc::errno($this->ffi);
            if ($op === self::CTL_DEL) {
                return; // already gone with its file: nothing to undo
            }
            throw new LoopError(match ($errno) {
                1 => 'epoll cannot watch this stream (EPERM: a regular file or a directory is always ready; read it directly)',
                default => "epoll_ctl(op {$op}, fd {$fd}) failed, errno {$errno}",
            });
        }
    }

    /**
     * After an epoll_wait() on $fd returned -1 (EpollStreams::wait() makes the call):
     * throws unless a signal interrupted the wait (EINTR), which counts as no event.
     */
    public function checkWaitError(): void
    {
        $errno = Libc::errno($this->ffi);
        if ($errno !== self::EINTR) {
            throw new LoopError("epoll_wait() failed, errno {$errno}");
        }
    }

    /** Closes the instance (in a forked child: only this process's copy of it). */
    public function close(): void
    {
        if ($this->fd >= 0) {
            /** @phpstan-ignore-next-line FFI call */
            $this->ffi->close($this->fd);
            $this->fd = -1;
        }
    }
}
