<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

/**
 * A connection's peer (Request::getRemoteAddress()) as the CGI variables have it, for the
 * bridges' REMOTE_ADDR and REMOTE_PORT.
 *
 * @internal
 */
final class PeerAddress
{
    /**
     * "1.2.3.4:5678" → ['1.2.3.4', '5678']; "[::1]:5678" → ['::1', '5678']; a unix socket
     * path → ['127.0.0.1', null] (a local peer, as nginx reports unix peers to php-fpm).
     *
     * @return array{?string, ?string}
     */
    public static function split(?string $address): array
    {
        if ($address === null || $address === '') {
            return [null, null];
        }
        if (\preg_match('/^\[([^\]]+)\]:(\d+)$/', $address, $m) === 1 || \preg_match('/^([^:]+):(\d+)$/', $address, $m) === 1) {
            return [$m[1], $m[2]];
        }
        if (\filter_var($address, \FILTER_VALIDATE_IP) !== false) {
            return [$address, null];
        }

        return ['127.0.0.1', null];
    }
}
