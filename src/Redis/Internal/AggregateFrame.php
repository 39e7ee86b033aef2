<?php

declare(strict_types=1);

namespace Petrel\Redis\Internal;

/**
 * One partially received aggregate (array, set, push, map or attribute) on the
 * {@see RespParser} stack. Mutable on purpose: it is filled in place, element by
 * element, so that a big aggregate arriving in many reads is never re-parsed.
 *
 * @internal
 */
final class AggregateFrame
{
    /** A map whose keys could not all be PHP array keys, collected as [k1, v1, k2, v2, …]. */
    public const FLAT_MAP = 'F';

    /** @var array<int|string, mixed> */
    public array $items = [];

    /** The key waiting for its value (maps only). */
    public int|string $key = 0;

    /**
     * @param string $type      the RESP type byte ('*', '~', '>', '%', '|') or FLAT_MAP
     * @param int    $remaining elements still to come (maps and attributes: keys + values)
     */
    public function __construct(public string $type, public int $remaining)
    {
    }

    /** Turns a map being filled into a flat [k1, v1, k2, v2, …] list, keeping what is there. */
    public function flatten(): void
    {
        $flat = [];
        foreach ($this->items as $key => $value) {
            $flat[] = $key;
            $flat[] = $value;
        }
        $this->items = $flat;
        $this->type = self::FLAT_MAP;
    }
}
