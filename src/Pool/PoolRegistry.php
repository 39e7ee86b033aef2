<?php

declare(strict_types=1);

namespace Petrel\Pool;

/**
 * The pools alive in this process, for diagnostics (the metrics and `petrel status`: in
 * use, idle, waiting, acquire timeouts per pool). Every Pool registers itself; a pool is
 * held weakly, so registering never keeps one alive.
 */
final class PoolRegistry
{
    /** @var \WeakMap<Pool<object>, true>|null */
    private static ?\WeakMap $pools = null;

    /** @param Pool<object> $pool */
    public static function register(Pool $pool): void
    {
        self::$pools ??= new \WeakMap();
        self::$pools[$pool] = true;
    }

    /**
     * Per pool name (pools of the same name are summed): busy, idle, waiting, and acquire
     * timeouts since the pool was made.
     *
     * @return array<string, array{busy: int, idle: int, waiting: int, timeouts: int}>
     */
    public static function stats(): array
    {
        $stats = [];
        foreach (self::$pools ?? [] as $pool => $_) {
            $figures = $pool->stats();
            $row = $stats[$figures['name']] ?? ['busy' => 0, 'idle' => 0, 'waiting' => 0, 'timeouts' => 0];
            $row['busy'] += $figures['busy'];
            $row['idle'] += $figures['idle'];
            $row['waiting'] += $figures['waiting'];
            $row['timeouts'] += $figures['timeouts'];
            $stats[$figures['name']] = $row;
        }

        return $stats;
    }
}
