<?php

declare(strict_types=1);

namespace Petrel\Console\Internal;

use Petrel\Console\ConsoleException;

/**
 * Parsers for the values of bin/petrel's options: each returns the value or throws a
 * one-line ConsoleException naming the option. Every range is bounded, so no value can
 * overflow an int, become INF or wrap a port further down.
 *
 * @internal
 */
final class OptionValue
{
    /** The largest SIZE (--max-body, --max-memory, --memory-limit): 4096G. */
    public const MAX_BYTES = 1 << 42;

    /** The largest N (--max-requests, --workers…): far beyond use, far below PHP_INT_MAX. */
    public const MAX_COUNT = 1_000_000_000_000_000;

    /**
     * The most processes of one kind (--workers, --task-workers). Each is a PHP process of
     * its own (15 MB and more) and a worker serves thousands of connections, so a few per
     * core is plenty; a typo such as --workers=99999 forked until the machine ran out of
     * memory, taking its databases with it.
     */
    public const MAX_PROCESSES = 1024;

    /** The longest S or MS (timeouts, --block-threshold): a day. */
    public const MAX_SECONDS = 86400;

    /**
     * "host:port" or "[v6]:port"; with $unix (--listen) also "tcp://" either, "unix:///path"
     * or "/path"; with $barePort (--metrics) also a port alone (127.0.0.1 implied). The port
     * must be 0-65535: PHP would pass on its low 16 bits, binding another port.
     */
    public static function address(string $flag, string $value, bool $unix = false, bool $barePort = false): string
    {
        $shape = $unix ? '127.0.0.1:8080, [::1]:8080 or unix:///path' : '127.0.0.1:9100 (or a port)';
        if ($unix && (\str_starts_with($value, '/') || \str_starts_with($value, 'unix://'))) {
            if (\in_array($value, ['/', 'unix://', 'unix:///'], true)) {
                throw new ConsoleException("--{$flag} must look like {$shape}, got \"{$value}\"");
            }

            return $value;
        }
        if ($barePort && \preg_match('/^\d+$/', $value)) {
            $value = "127.0.0.1:{$value}";
        }
        // --listen takes what the socket layer takes (Socket\Internal\Address); --metrics as before.
        $host = $unix ? '(?:tcp:\/\/)?(?:\[[0-9a-f:.]+\]|[^:\/\s\[\]]+)' : '(?:\[[0-9a-f:.]+\]|[\w.-]+)';
        if (!\preg_match("/^{$host}:(\\d+)$/i", $value, $m)) {
            throw new ConsoleException("--{$flag} must look like {$shape}, got \"{$value}\"");
        }
        if (\strlen($m[1]) > 5 || (int) $m[1] > 65535) {
            throw new ConsoleException("--{$flag} port must be 0-65535, got \"{$value}\"");
        }

        return $value;
    }

    public static function count(string $flag, string $value, bool $allowZero = false): int
    {
        if (!\ctype_digit($value) || (!$allowZero && (int) $value === 0)) {
            throw new ConsoleException("--{$flag} must be a " . ($allowZero ? 'whole number' : 'positive whole number') . ", got \"{$value}\"");
        }
        if (\strlen(\ltrim($value, '0')) > 16 || (int) $value > self::MAX_COUNT) {
            throw new ConsoleException("--{$flag} must be at most " . self::MAX_COUNT . ", got \"{$value}\"");
        }

        return (int) $value;
    }

    /** A count of processes (--workers, --task-workers): at most MAX_PROCESSES. */
    public static function processes(string $flag, string $value, bool $allowZero = false): int
    {
        $count = self::count($flag, $value, $allowZero);
        if ($count > self::MAX_PROCESSES) {
            throw new ConsoleException("--{$flag} must be at most " . self::MAX_PROCESSES . " (each is a PHP process; a worker serves thousands of connections, so a few per CPU core is plenty), got \"{$value}\"");
        }

        return $count;
    }

    /** A positive number of seconds, at most a day. */
    public static function seconds(string $flag, string $value): float
    {
        if (!\is_numeric($value) || (float) $value <= 0) {
            throw new ConsoleException("--{$flag} must be a positive number of seconds, got \"{$value}\"");
        }
        if ((float) $value > self::MAX_SECONDS) {
            throw new ConsoleException("--{$flag} must be at most " . self::MAX_SECONDS . " seconds (a day), got \"{$value}\"");
        }

        return (float) $value;
    }

    /** A number of milliseconds (0: off), at most a day; returned in seconds. */
    public static function milliseconds(string $flag, string $value): float
    {
        if (!\is_numeric($value) || (float) $value < 0) {
            throw new ConsoleException("--{$flag} must be a number of milliseconds (0: off), got \"{$value}\"");
        }
        if ((float) $value > self::MAX_SECONDS * 1000) {
            throw new ConsoleException("--{$flag} must be at most " . self::MAX_SECONDS * 1000 . " milliseconds (a day), got \"{$value}\"");
        }

        return (float) $value / 1000;
    }

    /** A SIZE: 512K, 32M, 1G or bytes, at most MAX_BYTES. */
    public static function bytes(string $flag, string $value): int
    {
        if (!\preg_match('/^(\d+)([KMG]?)$/i', $value, $m)) {
            throw new ConsoleException("--{$flag} must look like 512K, 32M or 1G, got \"{$value}\"");
        }
        $digits = \ltrim($m[1], '0');
        $unit = 1024 ** (int) \stripos('_KMG', $m[2] === '' ? '_' : $m[2]);
        if (\strlen($digits) > 15 || (int) $digits * $unit > self::MAX_BYTES) {
            throw new ConsoleException("--{$flag} must be at most 4096G, got \"{$value}\"");
        }

        return (int) $digits * $unit;
    }

    /** The directory's absolute path, so it does not depend on the working directory. */
    public static function directory(string $flag, string $value): string
    {
        $path = $value === '' ? false : \realpath($value);
        if ($path === false || !\is_dir($path)) {
            throw new ConsoleException("--{$flag} must be an existing directory, got \"{$value}\"");
        }

        return $path;
    }
}
