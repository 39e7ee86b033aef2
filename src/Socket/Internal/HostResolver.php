<?php

declare(strict_types=1);

namespace Petrel\Socket\Internal;

use Petrel\Socket\ConnectException;

/**
 * Name resolution. PHP has no non-blocking resolver, so the first lookup of a name blocks
 * the worker (the system resolver: /etc/hosts, then DNS; typically well under a
 * millisecond on a server with a local cache). Results are kept for $ttl seconds, so a
 * pool that reconnects to its database does not resolve again. IP literals never block.
 *
 * @internal
 */
final class HostResolver
{
    /** @var array<string, array{list<string>, float}> */
    private static array $cache = [];

    /** @return list<string> IPv4/IPv6 addresses of $host */
    public static function resolve(string $host, float $ttl = 60.0): array
    {
        if (\filter_var($host, \FILTER_VALIDATE_IP) !== false) {
            return [$host];
        }
        $now = \hrtime(true) * 1e-9;
        $cached = self::$cache[$host] ?? null;
        if ($cached !== null && $cached[1] > $now) {
            return $cached[0];
        }
        $addresses = @\gethostbynamel($host);
        if ($addresses === false || $addresses === []) {
            $records = @\dns_get_record($host, \DNS_AAAA);
            $addresses = \is_array($records) ? \array_values(\array_filter(\array_map(
                static fn (array $record): ?string => \is_string($record['ipv6'] ?? null) ? $record['ipv6'] : null,
                $records,
            ))) : [];
        }
        if ($addresses === []) {
            throw new ConnectException("Could not resolve host name \"{$host}\"");
        }
        self::$cache[$host] = [$addresses, $now + $ttl];

        return $addresses;
    }
}
