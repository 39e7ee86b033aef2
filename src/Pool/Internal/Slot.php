<?php

declare(strict_types=1);

namespace Petrel\Pool\Internal;

/**
 * One open connection of a Pool: when it was opened and, while idle, when it came back.
 * Made once per connection and reused by every release, where a [connection, times]
 * array would be allocated each time (~350 instructions per coroutine that queries).
 *
 * @template T of object
 * @internal for Pool
 */
final class Slot
{
    public float $idleSince = 0.0;

    /** @param T $connection */
    public function __construct(
        public readonly object $connection,
        public readonly float $born,
    ) {
    }
}
