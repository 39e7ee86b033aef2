<?php

declare(strict_types=1);

namespace Petrel\Redis;

/**
 * Out-of-band data pushed by the server (RESP3 `>` push type): pub/sub messages,
 * (un)subscribe confirmations, client-side-caching invalidations, MONITOR lines.
 *
 * It is a distinct type so that a client reading replies can tell push data apart
 * from the reply to its command (which would otherwise be a plain array).
 */
final class PushMessage
{
    /**
     * @param list<mixed> $data the pushed elements; by convention the first is the
     *                          kind of push ("message", "pmessage", "invalidate", …)
     */
    public function __construct(public readonly array $data)
    {
    }

    /** The first element when it is a string (e.g. "message"), '' otherwise. */
    public function kind(): string
    {
        $first = $this->data[0] ?? null;

        return is_string($first) ? $first : '';
    }
}
