<?php

declare(strict_types=1);

namespace Petrel\Observability\Internal;

/**
 * A few int64 cells in anonymous shared memory (mmap MAP_SHARED), made before a fork so
 * parent and children see the same cells; through FFI (~6 ns a read or write). Never
 * unmapped: it lives as long as the process (the master's watchdog: the whole server).
 *
 * @internal
 */
final class SharedMemory
{
    private const PROT_READ_WRITE = 3;
    private const MAP_SHARED_ANONYMOUS = 0x01 | 0x20;

    private static ?\FFI $libc = null;

    /** The cells: an `int64_t *`; index 0..$cells-1. */
    public readonly \FFI\CData $cells;

    /** @throws \RuntimeException where FFI or mmap is not available */
    public function __construct(int $cells)
    {
        if (!\extension_loaded('ffi')) {
            throw new \RuntimeException('ext-ffi is not loaded');
        }
        try {
            self::$libc ??= \FFI::cdef(
                'long mmap(void *addr, size_t length, int prot, int flags, int fd, long offset);',
                'libc.so.6',
            );
        } catch (\FFI\Exception $error) {
            throw new \RuntimeException('FFI cannot load libc: ' . $error->getMessage(), 0, $error);
        }
        // Declared as returning long: FFI cannot turn a void * into an integer to compare with MAP_FAILED.
        /** @phpstan-ignore-next-line FFI call */
        $address = (int) self::$libc->mmap(null, \max(8, $cells * 8), self::PROT_READ_WRITE, self::MAP_SHARED_ANONYMOUS, -1, 0);
        $cast = $address === -1 || $address === 0 ? null : self::$libc->cast('int64_t *', $address);
        if ($cast === null) {
            throw new \RuntimeException('mmap() of shared memory failed');
        }
        $this->cells = $cast;
    }
}
