<?php

declare(strict_types=1);

namespace Petrel\Loop;

/**
 * Picks the loop driver: PETREL_DRIVER=select|epoll if set, else epoll where it works
 * (Linux, ext-ffi with FFI::cdef allowed — ffi.enable=preload does in the CLI — and
 * ext-sockets), else select. Asking for epoll where it cannot work, or for a driver that
 * does not exist, is a LoopError naming the reason or the valid names.
 *
 *     $choice = DriverFactory::choose();      // ->name, ->fallbackReason (one line or null)
 *     $driver = DriverFactory::create();      // = choose()->create()
 */
final class DriverFactory
{
    public const NAMES = ['epoll', 'select'];

    /** @param string|null $requested a driver name; null reads PETREL_DRIVER */
    public static function choose(?string $requested = null): DriverChoice
    {
        $requested ??= \getenv('PETREL_DRIVER') ?: '';
        $requested = \strtolower(\trim($requested));
        $reason = EpollDriver::unavailableReason();

        return match ($requested) {
            'select' => new DriverChoice('select'),
            'epoll' => $reason === null
                ? new DriverChoice('epoll')
                : throw new LoopError("PETREL_DRIVER=epoll cannot work here: {$reason}"),
            '' => $reason === null
                ? new DriverChoice('epoll')
                : new DriverChoice('select', "epoll unavailable ({$reason}); using stream_select, at most ~1,000 connections per worker"),
            default => throw new LoopError(
                "Unknown loop driver '{$requested}' (PETREL_DRIVER); valid: " . \implode(', ', self::NAMES),
            ),
        };
    }

    public static function create(?string $requested = null): Driver
    {
        return self::choose($requested)->create();
    }
}
