<?php

declare(strict_types=1);

namespace Petrel\Socket\Internal;

use Petrel\Socket\SocketError;

/**
 * @internal Normalises "host:port" / "tcp://…" / "tls://…" / "unix://…" addresses into stream
 * URIs, refusing a port past 65535: PHP would pass on its low 16 bits (127.0.0.1:70000 is
 * port 4464, someone else's).
 */
final class Address
{
    public static function toUri(string $address): string
    {
        if (\str_starts_with($address, 'unix://')) {
            return $address;
        }
        if (\str_starts_with($address, '/')) {
            return 'unix://' . $address;
        }
        $scheme = \str_starts_with($address, 'tcp://') || \str_starts_with($address, 'tls://') ? \substr($address, 0, 6) : '';
        $hostPort = \substr($address, \strlen($scheme));
        if (!\preg_match('/^(\[[0-9a-fA-F:.]+\]|[^:\/\s]+):(\d{1,5})$/', $hostPort, $m)) {
            throw new SocketError("Malformed address \"{$address}\": expected host:port, [ipv6]:port or unix:///path");
        }
        if ((int) $m[2] > 65535) {
            throw new SocketError("Port {$m[2]} of \"{$address}\" is out of range: ports are 0-65535");
        }

        return ($scheme === '' ? 'tcp://' : $scheme) . $hostPort;
    }

    /** @return array{string, int} host (without brackets) and port of a tcp:// or tls:// URI */
    public static function hostPort(string $uri): array
    {
        $rest = (string) \preg_replace('#^[a-z]+://#', '', $uri);
        $colon = \strrpos($rest, ':');
        if ($colon === false) {
            throw new SocketError("Missing port in \"{$uri}\"");
        }

        return [\trim(\substr($rest, 0, $colon), '[]'), (int) \substr($rest, $colon + 1)];
    }
}
