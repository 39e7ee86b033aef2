<?php

declare(strict_types=1);

namespace Petrel\Observability\Internal;

/**
 * The client as the access logs show it: Request::getRemoteAddress() without the port,
 * as nginx's $remote_addr and Apache's %h have it. Runs for every logged request, so two
 * string searches and no regex.
 *
 * @internal
 */
final class RemoteAddr
{
    /**
     * "1.2.3.4:5678" → "1.2.3.4"; "[::1]:5678" → "::1" (no brackets, as nginx prints it);
     * an address without a port ("1.2.3.4", "::1") as it is; a unix socket path → "unix:"
     * (nginx's $remote_addr for a unix peer); null or "" (unknown: PHP names no unix peer,
     * nor a peer already gone) → null.
     */
    public static function of(?string $peer): ?string
    {
        if ($peer === null || $peer === '') {
            return null;
        }
        if ($peer[0] === '[') {
            $end = \strpos($peer, ']');

            return $end === false ? $peer : \substr($peer, 1, $end - 1);
        }
        if ($peer[0] === '/') {
            return 'unix:';
        }
        $colon = \strrpos($peer, ':');

        // No colon: no port. More than one: a bare IPv6 address, whose last group is no port.
        return $colon === false || \strpos($peer, ':') !== $colon ? $peer : \substr($peer, 0, $colon);
    }
}
