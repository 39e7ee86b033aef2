<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\Request;

/**
 * The server parameters php-fpm would give a front controller at the document root, for
 * the bridges: PSR-7's getServerParams() and Symfony's $request->server (whose
 * RequestFactory adds the app's configured extras): REQUEST_METHOD, REQUEST_URI (origin-form), QUERY_STRING, SERVER_PROTOCOL,
 * SCRIPT_NAME '' (the app is at the root), REQUEST_TIME(_FLOAT) when converted,
 * REMOTE_ADDR/REMOTE_PORT from the peer, SERVER_NAME/SERVER_PORT from the Host header (80
 * when it names none: Petrel serves plain HTTP, TLS ends at a proxy, so there is no HTTPS),
 * HTTP_* for each header and CONTENT_TYPE/CONTENT_LENGTH without the prefix.
 *
 * @internal
 */
final class ServerParams
{
    /** @return array<string, string|int|float> */
    public static function of(Request $request): array
    {
        $target = $request->getTarget();
        $query = $request->getQueryString();
        $now = \microtime(true);
        [$name, $port] = self::hostAndPort($request->getHeader('host'));
        $server = [
            'SERVER_SOFTWARE' => 'Petrel',
            'SERVER_PROTOCOL' => 'HTTP/' . $request->getProtocolVersion(),
            'GATEWAY_INTERFACE' => 'CGI/1.1',
            'REQUEST_METHOD' => $request->getMethod(),
            // absolute-form targets (proxies) become origin-form, as php-fpm behind nginx sees them
            'REQUEST_URI' => \str_starts_with($target, '/') ? $target : ($query === '' ? $request->getPath() : $request->getPath() . '?' . $query),
            'QUERY_STRING' => $query,
            'SCRIPT_NAME' => '',
            'SCRIPT_FILENAME' => '',
            'PHP_SELF' => '',
            'REQUEST_TIME' => (int) $now,
            'REQUEST_TIME_FLOAT' => $now,
            'SERVER_NAME' => $name,
            'SERVER_PORT' => $port,
        ];
        [$remoteAddress, $remotePort] = PeerAddress::split($request->getRemoteAddress());
        if ($remoteAddress !== null) {
            $server['REMOTE_ADDR'] = $remoteAddress;
        }
        if ($remotePort !== null) {
            $server['REMOTE_PORT'] = $remotePort;
        }
        foreach ($request->getHeaders() as $header => $values) {
            if (\str_contains($header, '_')) {
                // X_Forwarded_For would land on X-Forwarded-For's HTTP_X_FORWARDED_FOR and
                // override it (a spoofed client IP): dropped, as nginx and Apache drop such
                // names before php-fpm sees them.
                continue;
            }
            $key = \strtoupper(\str_replace('-', '_', $header));
            $value = isset($values[1]) ? \implode($header === 'cookie' ? '; ' : ', ', $values) : $values[0];
            $server[$key === 'CONTENT_TYPE' || $key === 'CONTENT_LENGTH' ? $key : 'HTTP_' . $key] = $value;
        }

        return $server;
    }

    /**
     * "example.org:8080" → ['example.org', '8080']; "[::1]:8080" → ['[::1]', '8080']; no
     * port → '80'.
     *
     * @return array{string, string}
     */
    private static function hostAndPort(?string $host): array
    {
        if ($host === null || $host === '') {
            return ['localhost', '80'];
        }
        if (\preg_match('/^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/', $host, $m) !== 1) {
            return [$host, '80'];
        }

        return [$m[1], ($m[2] ?? '') !== '' ? $m[2] : '80'];
    }
}
