<?php

declare(strict_types=1);

namespace Petrel\Console\Internal;

use Petrel\Console\ConsoleException;
use Petrel\Loop\DriverChoice;

/**
 * How many connections one worker may hold open (--max-connections), from what the process
 * can watch and open:
 *
 * - the `stream_select` driver watches descriptors below FD_SETSIZE (1,024) only: at most
 *   1,000 connections, and never more than the descriptor limit minus a reserve; those
 *   turned away with a 503 at the cap count too (rejecting()). The default cap keeps a
 *   sixteenth of that (62 of 1,000) for them, so that a newcomer finding every connection
 *   busy is told so (503, Retry-After) rather than closed at once (a reset, which clients
 *   report as a network failure); `--max-connections=1000` still takes all of it;
 * - any other driver (epoll) has no such ceiling, but a connection may cost 2 descriptors
 *   (the socket and the driver's own), so (soft RLIMIT_NOFILE − reserve) / 2.
 *
 * The reserve (256) is left for what the APP opens itself: files, database and Redis
 * connections, the listening socket and the pipe to the master. At start the master first
 * raises its soft descriptor limit to the hard one (nginx's worker_rlimit_nofile; workers
 * inherit it), then computes the default or refuses a value above it with one clear line.
 *
 * @internal
 */
final class ConnectionLimit
{
    /** Descriptors kept for the APP's own files and connections. */
    public const RESERVE = 256;
    /** stream_select() only takes descriptors below FD_SETSIZE (1,024). */
    public const SELECT_MAX = 1000;
    /** Under select, the part of the maximum the default cap leaves for 503s. */
    private const SELECT_REJECTING_SHARE = 16;

    /**
     * Raises the soft RLIMIT_NOFILE to the hard limit. Returns null, or one line saying
     * why it could not (the start goes on with the current limit).
     */
    public static function raiseDescriptorLimit(): ?string
    {
        $limits = \posix_getrlimit();
        if ($limits === false) {
            return 'cannot read the descriptor limit (getrlimit failed)';
        }
        $soft = $limits['soft openfiles'];
        $hard = $limits['hard openfiles'];
        if ($soft === $hard) {
            return null;
        }
        $target = $hard === 'unlimited' ? \POSIX_RLIMIT_INFINITY : (int) $hard;
        if (!@\posix_setrlimit(\POSIX_RLIMIT_NOFILE, $target, $target)) {
            return \sprintf('could not raise the descriptor limit from %s to %s: %s', $soft, $hard, \posix_strerror(\posix_get_last_error()));
        }

        return null;
    }

    /** The soft RLIMIT_NOFILE now in force (PHP_INT_MAX when unlimited). */
    public static function descriptorLimit(): int
    {
        $soft = (\posix_getrlimit() ?: [])['soft openfiles'] ?? 1024;

        return $soft === 'unlimited' ? \PHP_INT_MAX : (int) $soft;
    }

    /**
     * The most connections a worker may hold with the loop driver $driver (chosen by
     * Loop\DriverFactory: the master asks which one the workers will make, without making
     * one) and $descriptors open files.
     */
    public static function maximum(DriverChoice $driver, int $descriptors): int
    {
        $usable = \max(1, $descriptors - self::RESERVE);

        return self::usesSelect($driver) ? \min(self::SELECT_MAX, $usable) : \max(1, \intdiv($usable, 2));
    }

    /**
     * $requested, or a ConsoleException saying why it is too many; null: the maximum, less
     * under select what it keeps for 503s.
     *
     * @throws ConsoleException
     */
    public static function resolve(?int $requested, DriverChoice $driver, int $descriptors): int
    {
        $maximum = self::maximum($driver, $descriptors);
        if ($requested === null) {
            return self::usesSelect($driver) ? \max(1, $maximum - \intdiv($maximum, self::SELECT_REJECTING_SHARE)) : $maximum;
        }
        if ($requested <= $maximum) {
            return $requested;
        }
        if (self::usesSelect($driver) && $maximum === self::SELECT_MAX) {
            throw new ConsoleException(\sprintf('--max-connections=%d is more than the select driver can watch (at most %d per worker); use the epoll driver (PETREL_DRIVER=epoll) or more workers', $requested, $maximum));
        }
        throw new ConsoleException(\sprintf(
            '--max-connections=%d needs about %d descriptors per worker, the limit is %d (ulimit -n); raise the limit or use at most %d',
            $requested,
            $requested * (self::usesSelect($driver) ? 1 : 2) + self::RESERVE,
            $descriptors,
            $maximum,
        ));
    }

    /**
     * How many connections turned away at the cap (503) a worker may hold beside
     * $maxConnections served: under select, what the maximum leaves (a socket past
     * FD_SETSIZE cannot be watched: the loop would fail); null otherwise (as many as served,
     * ServerConfig's default).
     */
    public static function rejecting(DriverChoice $driver, int $maxConnections, int $descriptors): ?int
    {
        return self::usesSelect($driver) ? \max(0, self::maximum($driver, $descriptors) - $maxConnections) : null;
    }

    /** What the start line says about the loop driver: "driver epoll", or "driver select (epoll unavailable: …)". */
    public static function describe(DriverChoice $driver): string
    {
        return 'driver ' . $driver->name . ($driver->fallbackReason !== null ? " ({$driver->fallbackReason})" : '');
    }

    private static function usesSelect(DriverChoice $driver): bool
    {
        return $driver->name === 'select';
    }
}
