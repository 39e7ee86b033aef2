<?php

declare(strict_types=1);

namespace Petrel\Loop\Internal;

use FFI;

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
        int fcntl(int fd, int cmd, int arg);
        int *__errno_location(void);
        C;

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

    public static function errno(FFI $ffi): int
    {
        /** @phpstan-ignore-next-line FFI returns a CData int pointer */
        return (int) $ffi->__errno_location()[0];
    }
}
