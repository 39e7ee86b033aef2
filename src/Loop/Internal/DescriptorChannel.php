<?php

declare(strict_types=1);

namespace Petrel\Loop\Internal;

use FFI;
use FFI\CData;
use Petrel\Loop\LoopError;
use Socket;

/**
 * Turns a PHP stream into a descriptor number: PHP hides a stream's fd, so the stream is
 * sent to ourselves over a Unix datagram socket pair with SCM_RIGHTS (PHP's
 * socket_sendmsg() casts stream resources to their fd) and received with FFI recvmsg(),
 * which installs a NEW descriptor (close-on-exec) for the same open file description.
 * The caller owns it and must close() it. See docs/event-loop.md for why and the cost.
 *
 * The receiving end's own number is found once, by matching its inode (fstat) against
 * /proc/self/fd. That scan is also the fallback for a stream PHP will not cast to its fd:
 * a TLS stream once its handshake is done (OpenSSL refuses, so that reads cannot bypass
 * it); it costs O(open descriptors), for the few TLS client connections that are first
 * watched after their handshake.
 *
 * @internal
 */
final class DescriptorChannel
{
    private const SOL_SOCKET = 1;
    private const SCM_RIGHTS = 1;
    private const FLAGS = 0x40000000 | 0x40; // MSG_CMSG_CLOEXEC | MSG_DONTWAIT
    private const CONTROL_BYTES = 64;
    private const F_DUPFD_CLOEXEC = 1030;

    private readonly Socket $sender;
    /** @var resource the receiving end, kept open */
    private readonly mixed $receiver; // @phpstan-ignore property.onlyWritten
    private readonly int $receiverFd;
    private readonly CData $message;
    private readonly CData $control;
    /** @var array{CData, CData} the iovec and its buffer, alive as long as $message points at them */
    private readonly array $pointees; // @phpstan-ignore property.onlyWritten

    public function __construct(private readonly FFI $ffi)
    {
        if (!\socket_create_pair(\AF_UNIX, \SOCK_DGRAM, 0, $pair)) {
            throw new LoopError('socket_create_pair() failed: ' . \socket_strerror(\socket_last_error()));
        }
        [$this->sender, $receiver] = $pair;
        $stream = \socket_export_stream($receiver);
        if ($stream === false) {
            throw new LoopError('socket_export_stream() failed on the fd channel');
        }
        $this->receiver = $stream;
        $this->receiverFd = self::findDescriptor($stream);
        $message = $ffi->new('struct msghdr');
        $iov = $ffi->new('struct iovec');
        $control = $ffi->new('uint32_t[' . (self::CONTROL_BYTES / 4) . ']');
        $byte = $ffi->new('uint8_t[8]');
        \assert($message instanceof CData && $iov instanceof CData && $control instanceof CData && $byte instanceof CData);
        /** @phpstan-ignore-next-line CData fields */
        $iov->iov_base = FFI::addr($byte[0]);
        /** @phpstan-ignore-next-line */
        $iov->iov_len = 8;
        /** @phpstan-ignore-next-line */
        $message->msg_iov = FFI::addr($iov);
        /** @phpstan-ignore-next-line */
        $message->msg_iovlen = 1;
        /** @phpstan-ignore-next-line */
        $message->msg_control = FFI::addr($control[0]);
        [$this->message, $this->control, $this->pointees] = [$message, $control, [$iov, $byte]];
    }

    /**
     * A new descriptor for $stream's open file, owned by the caller.
     *
     * @param resource $stream
     */
    public function duplicate(mixed $stream): int
    {
        $sent = @\socket_sendmsg($this->sender, [
            'iov' => ["\0"],
            'control' => [['level' => self::SOL_SOCKET, 'type' => self::SCM_RIGHTS, 'data' => [$stream]]],
        ], 0);
        if ($sent === false) {
            return $this->duplicateFound($stream, \error_get_last()['message'] ?? '');
        }
        /** @phpstan-ignore-next-line CData fields */
        $this->message->msg_controllen = self::CONTROL_BYTES;
        /** @phpstan-ignore-next-line FFI call */
        $received = (int) $this->ffi->recvmsg($this->receiverFd, FFI::addr($this->message), self::FLAGS);
        // cmsghdr: size_t cmsg_len (words 0-1), int level (2), int type (3), fds from word 4
        $control = $this->control;
        if ($received < 0 || $control[2] !== self::SOL_SOCKET || $control[3] !== self::SCM_RIGHTS) {
            throw new LoopError('recvmsg() of a descriptor sent to ourselves failed, errno ' . Libc::errno($this->ffi));
        }

        return (int) $control[4];
    }

    /**
     * The fallback: find $stream's descriptor by its inode in /proc/self/fd and duplicate it.
     *
     * @param resource $stream
     */
    private function duplicateFound(mixed $stream, string $whyNotSent): int
    {
        try {
            $original = self::findDescriptor($stream);
        } catch (LoopError) {
            throw new LoopError('The epoll driver can only watch streams that have a file descriptor (sockets, pipes), got a '
                . \stream_get_meta_data($stream)['stream_type'] . " stream: {$whyNotSent}");
        }
        /** @phpstan-ignore-next-line FFI call */
        $fd = (int) $this->ffi->fcntl($original, self::F_DUPFD_CLOEXEC, 0);
        if ($fd < 0) {
            throw new LoopError('fcntl(F_DUPFD_CLOEXEC) failed, errno ' . Libc::errno($this->ffi));
        }

        return $fd;
    }

    public function close(int $fd): void
    {
        /** @phpstan-ignore-next-line FFI call */
        $this->ffi->close($fd);
    }

    /** @param resource $stream */
    private static function findDescriptor(mixed $stream): int
    {
        $stat = \fstat($stream);
        if ($stat === false || $stat['ino'] === 0) {
            throw new LoopError('fstat() of the stream failed: its descriptor cannot be found');
        }
        $target = 'socket:[' . $stat['ino'] . ']';
        foreach (\scandir('/proc/self/fd') ?: [] as $entry) {
            if (\ctype_digit($entry) && @\readlink("/proc/self/fd/{$entry}") === $target) {
                return (int) $entry;
            }
        }
        throw new LoopError("Could not find {$target} in /proc/self/fd");
    }
}
