<?php

declare(strict_types=1);

namespace Petrel\Loop\Internal;

use FFI;
use FFI\CData;

/**
 * The few libc functions the epoll driver calls through FFI, declared once per process.
 * epoll_event is handled as an array of uint32 words (see Epoll), and recvmsg's buffers
 * are plain word arrays too, so no struct layout but msghdr's is declared here.
 *
 * @internal
 */
final class Libc
{
    private const DECLARATIONS = <<<'C'
        typedef long ssize_t;
        struct iovec { void *iov_base; size_t iov_len; };
        struct msghdr {
            void *msg_name; uint32_t msg_namelen; struct iovec *msg_iov; size_t msg_iovlen;
            void *msg_control; size_t msg_controllen; int msg_flags;
        };
        int epoll_create1(int flags);
        int epoll_ctl(int epfd, int op, int fd, uint32_t *event);
        int epoll_wait(int epfd, uint32_t *events, int maxevents, int timeout);
        ssize_t recvmsg(int fd, struct msghdr *msg, int flags);
        int close(int fd);
        long mmap(void *addr, size_t length, int prot, int flags, int fd, long offset);
        int munmap(void *addr, size_t length);
        int madvise(void *addr, size_t length, int advice);
        int fcntl(int fd, int cmd, int arg);
        int *__errno_location(void);
        C;

    private const PAGE = 4096;

    private static ?FFI $ffi = null;
    private static ?string $unavailable = null;

    /** The bound library; throws LoopError with unavailableReason() if it cannot be had. */
    public static function ffi(): FFI
    {
        $reason = self::unavailableReason();
        if ($reason !== null || self::$ffi === null) {
            throw new \Petrel\Loop\LoopError($reason ?? 'FFI is not available');
        }

        return self::$ffi;
    }

    /** Null if epoll through FFI works in this process, else why not (one line). */
    public static function unavailableReason(): ?string
    {
        if (self::$ffi !== null || self::$unavailable !== null) {
            return self::$unavailable;
        }
        if (\PHP_OS_FAMILY !== 'Linux') {
            return self::$unavailable = 'epoll needs Linux, this is ' . \PHP_OS_FAMILY;
        }
        if (!\extension_loaded('ffi')) {
            return self::$unavailable = 'ext-ffi is not loaded';
        }
        if (!\extension_loaded('sockets')) {
            return self::$unavailable = 'ext-sockets is not loaded';
        }
        try {
            self::$ffi = FFI::cdef(self::DECLARATIONS, 'libc.so.6');
        } catch (\Throwable $e) {
            return self::$unavailable = 'FFI::cdef failed (ffi.enable=' . \ini_get('ffi.enable') . '): '
                . \strtok($e->getMessage(), "\n");
        }

        return null;
    }

    /**
     * A byte that reads 1 in this process and 0 in any child forked from it (a fresh
     * MADV_WIPEONFORK page): a fork check with no syscall, where getmypid() costs one.
     * Null where the kernel cannot wipe on fork (before Linux 4.14). Free it with unmap().
     */
    public static function forkMark(FFI $ffi): ?CData
    {
        // PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, MADV_WIPEONFORK. mmap() is declared
        // as returning long: FFI cannot turn a void * into an integer to compare with MAP_FAILED.
        /** @phpstan-ignore-next-line FFI call */
        $address = (int) $ffi->mmap(null, self::PAGE, 3, 0x22, -1, 0);
        $mark = $address === -1 || $address === 0 ? null : $ffi->cast('uint8_t *', $address);
        if ($mark === null) {
            return null;
        }
        /** @phpstan-ignore-next-line FFI call */
        if ($ffi->madvise($mark, self::PAGE, 18) !== 0) {
            self::unmap($ffi, $mark);

            return null;
        }
        $mark[0] = 1;

        return $mark;
    }

    public static function unmap(FFI $ffi, CData $mark): void
    {
        /** @phpstan-ignore-next-line FFI call */
        $ffi->munmap($mark, self::PAGE);
    }

    public static function errno(FFI $ffi): int
    {
        /** @phpstan-ignore-next-line FFI returns a CData int pointer */
        return (int) $ffi->__errno_location()[0];
    }
}
