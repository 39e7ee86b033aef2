<?php

declare(strict_types=1);

namespace Petrel\WebSocket\Internal;

use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\WebSocket\WebSocketOptions;

/**
 * The opening handshake (RFC 6455 §4), pure: the server's checks of the request and the
 * headers of its answer, the client's key and the accept value both compute.
 */
final class Handshake
{
    private const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

    private function __construct()
    {
    }

    public static function accept(string $key): string
    {
        return \base64_encode(\sha1($key . self::GUID, true));
    }

    public static function newKey(): string
    {
        return \base64_encode(\random_bytes(16));
    }

    /** Whether a comma-separated header value has $token (case-insensitive). */
    public static function hasToken(?string $value, string $token): bool
    {
        foreach (\explode(',', $value ?? '') as $item) {
            if (\strcasecmp(\trim($item), $token) === 0) {
                return true;
            }
        }

        return false;
    }

    /**
     * Checks a request to upgrade: 400 when it is not a WebSocket handshake, 426 (with
     * the version we speak) for another protocol version; null when it is acceptable.
     */
    public static function reject(Request $request): ?Response
    {
        $error = match (true) {
            $request->getMethod() !== 'GET' => 'The WebSocket handshake must be a GET request',
            $request->getProtocolVersion() !== '1.1' => 'The WebSocket handshake needs HTTP/1.1',
            !self::hasToken($request->getHeader('upgrade'), 'websocket') => 'Missing "Upgrade: websocket"',
            !self::hasToken($request->getHeader('connection'), 'upgrade') => 'Missing "Connection: Upgrade"',
            !self::isValidKey($request->getHeaderValues('sec-websocket-key')) => 'Missing or invalid Sec-WebSocket-Key',
            !$request->hasHeader('sec-websocket-version') => 'Missing Sec-WebSocket-Version',
            default => null,
        };
        if ($error !== null) {
            return new Response(400, ['Content-Type' => 'text/plain; charset=utf-8', 'Sec-WebSocket-Version' => '13'], $error . "\n");
        }
        if (\trim((string) $request->getHeader('sec-websocket-version')) !== '13') {
            return new Response(426, [
                'Content-Type' => 'text/plain; charset=utf-8',
                'Sec-WebSocket-Version' => '13',
            ], "Unsupported WebSocket version: this server speaks version 13\n");
        }

        return null;
    }

    /**
     * 403 for a request from a browser page of another host than the request's and of an
     * origin the options do not allow (see WebSocketOptions::$allowedOrigins); null when
     * allowed, or when the client sent no Origin (not a browser).
     */
    public static function forbidOrigin(Request $request, WebSocketOptions $options): ?Response
    {
        $origin = $request->getHeader('origin');
        if ($origin === null || $options->allowedOrigins === ['*']) {
            return null;
        }
        $origin = \strtolower(\trim($origin));
        // The page's host is the one the browser sent this to. Ports aside: cookies do not
        // tell ports apart either, and a proxy's Host ($host in nginx) has none.
        $withoutPort = static fn (string $authority): string => (string) \preg_replace('/:\d*$/D', '', $authority);
        if (\preg_match('~^[a-z][a-z0-9+.-]*://([^/?#@]+)$~D', $origin, $m) === 1
            && $withoutPort($m[1]) === $withoutPort(\strtolower(\trim((string) $request->getHeader('host'))))) {
            return null;
        }
        foreach ($options->allowedOrigins as $allowed) {
            if ($allowed === '*' || \strtolower($allowed) === $origin) {
                return null;
            }
        }

        return new Response(403, ['Content-Type' => 'text/plain; charset=utf-8'], \sprintf(
            "A WebSocket from a page of %s is not allowed here: only the server's own origin and those of WebSocketOptions::withAllowedOrigins()\n",
            \addcslashes($origin, "\0..\37"),
        ));
    }

    /**
     * The 101 answer's headers for an acceptable request, with what was agreed.
     *
     * @return array{array<string, string>, ?PerMessageDeflate, ?string}
     */
    public static function agree(Request $request, WebSocketOptions $options): array
    {
        $headers = [
            'Upgrade' => 'websocket',
            'Connection' => 'Upgrade',
            'Sec-WebSocket-Accept' => self::accept(\trim((string) $request->getHeader('sec-websocket-key'))),
        ];
        $deflate = $options->compression ? PerMessageDeflate::negotiate($request->getHeaderValues('sec-websocket-extensions')) : null;
        if ($deflate !== null) {
            $headers['Sec-WebSocket-Extensions'] = $deflate->response();
        }
        $protocol = self::chooseSubprotocol($request->getHeader('sec-websocket-protocol'), $options->subprotocols);
        if ($protocol !== null) {
            $headers['Sec-WebSocket-Protocol'] = $protocol;
        }

        return [$headers, $deflate, $protocol];
    }

    /** @param list<string> $keys */
    private static function isValidKey(array $keys): bool
    {
        if (\count($keys) !== 1) {
            return false;
        }
        $decoded = \base64_decode(\trim($keys[0]), true);

        return $decoded !== false && \strlen($decoded) === 16;
    }

    /** @param list<string> $supported in our order of preference */
    private static function chooseSubprotocol(?string $offered, array $supported): ?string
    {
        if ($offered === null) {
            return null;
        }
        $offers = \array_map('trim', \explode(',', $offered));
        foreach ($supported as $protocol) {
            if (\in_array($protocol, $offers, true)) {
                return $protocol;
            }
        }

        return null;
    }
}
