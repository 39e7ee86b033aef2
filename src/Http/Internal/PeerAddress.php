<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

/**
 * A connection's peer (Request::getRemoteAddress(), "1.2.3.4:5678" or "[::1]:5678") taken
 * apart: for the bridges' CGI variables REMOTE_ADDR and REMOTE_PORT, and for the access
 * logs' client, which is nginx's $remote_addr (the address without the port). Two string
 * searches, no regex: the access logs call it for every request.
 *
 * @internal
 */
final class PeerAddress
{
    /**
     * "1.2.3.4:5678" → ['1.2.3.4', '5678']; "[::1]:5678" → ['::1', '5678'] (no brackets); an
     * IP address without a port as it is; anything else, a unix socket path, → [$local, null]
     * (127.0.0.1 for the CGI variables, as nginx reports unix peers to php-fpm; "unix:" in a
     * log, as nginx's $remote_addr). Null or "" (unknown: PHP names no unix peer) → nulls.
     *
     * @return array{?string, ?string}
     */
    public static function split(?string $address, string $local = '127.0.0.1'): array
    {
        if ($address === null || $address === '') {
            return [null, null];
        }
        if ($address[0] === '[') {
            $end = \strpos($address, ']:');
            if ($end > 1 && \ctype_digit(\substr($address, $end + 2))) {
                return [\substr($address, 1, $end - 1), \substr($address, $end + 2)];
            }
        } elseif (($colon = \strpos($address, ':')) > 0 && \strrpos($address, ':') === $colon && \ctype_digit(\substr($address, $colon + 1))) {
            return [\substr($address, 0, $colon), \substr($address, $colon + 1)];
        }
        if (\filter_var($address, \FILTER_VALIDATE_IP) !== false) {
            return [$address, null];
        }

        return [$local, null];
    }

    /** The client as the access logs show it: split()'s address, "unix:" for a unix peer. */
    public static function forLog(?string $address): ?string
    {
        return self::split($address, 'unix:')[0];
    }
}
