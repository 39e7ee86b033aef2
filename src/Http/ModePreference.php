<?php

declare(strict_types=1);

namespace Petrel\Http;

/**
 * A request handler that knows which run mode it is safe in. The server's owner (bin/petrel)
 * uses preferredMode() when the user did not choose a mode explicitly (--mode or
 * PETREL_MODE), and says so at start-up; an explicit choice always wins.
 *
 * Example: a Symfony kernel keeps per-request state in its container (RequestStack, the
 * security token, buffered loggers), so Petrel\Symfony\KernelHandler prefers "sync".
 */
interface ModePreference
{
    /** ServerConfig::MODE_SYNC or ServerConfig::MODE_COROUTINE. */
    public function preferredMode(): string;

    /** Why, in a few words for the start-up line, e.g. "a Symfony kernel keeps per-request state". */
    public function modeReason(): string;
}
