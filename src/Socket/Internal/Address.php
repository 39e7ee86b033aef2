<?php

declare(strict_types=1);

namespace Petrel\Socket\Internal;

use Petrel\Socket\SocketError;

/** @internal Normalises "host:port" / "tcp://…" / "unix://…" addresses into stream URIs. */
final class Address
{
    public static function toUri(string $address): string
    {
        if (\str_starts_with($address, 'unix://') || \str_starts_with($address, 'tcp://') || \str_starts_with($address, 'tls://')) {
            return $address;
        }
        if (\str_starts_with($address, '/')) {
            return 'unix://' . $address;
        }
        if (!\preg_match('/^(\[[0-9a-fA-F:.]+\]|[^:\/\s]+):(\d{1,5})$/', $address)) {
            throw new SocketError("Malformed address \"{$address}\": expected host:port, [ipv6]:port or unix:///path");
        }

        return 'tcp://' . $address;
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
