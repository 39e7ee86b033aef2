<?php

declare(strict_types=1);

namespace Petrel\WebSocket;

use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\TimeoutException;
use Petrel\Socket\ConnectOptions;
use Petrel\Socket\Socket;
use Petrel\Socket\SocketException;
use Petrel\Socket\TlsOptions;
use Petrel\WebSocket\Internal\Handshake;
use Petrel\WebSocket\Internal\PerMessageDeflate;

use function Petrel\Socket\connect;

/** The client side: connects, does the opening handshake, returns the WebSocket. */
final class WebSocketClient
{
    private const MAX_HEAD = 16384;

    private function __construct()
    {
    }

    /**
     * Connects to ws://host[:port]/path or wss://… (TLS, verified; pass $tls to change
     * that), offering permessage-deflate and the options' subprotocols. Close the returned
     * WebSocket when done: its reader coroutine runs until then.
     *
     * @param array<string, string> $headers extra request headers (Origin, Authorization…)
     * @throws HandshakeException when the server refuses or answers wrongly
     * @throws WebSocketException when the connection fails or the handshake times out
     */
    public static function connect(string $url, array $headers = [], ?WebSocketOptions $options = null, ?TlsOptions $tls = null): WebSocket
    {
        $options ??= new WebSocketOptions();
        [$secure, $host, $port, $target] = self::parseUrl($url);
        $connectOptions = (new ConnectOptions())->withConnectTimeout($options->handshakeTimeout);
        if ($secure) {
            $connectOptions = $connectOptions->withTls($tls ?? new TlsOptions());
        }
        $authority = \str_contains($host, ':') ? "[{$host}]" : $host;
        try {
            $socket = connect("tcp://{$authority}:{$port}", $connectOptions);
        } catch (SocketException $e) {
            throw new WebSocketException("Could not connect to {$url}: {$e->getMessage()}", 0, $e);
        }
        $key = Handshake::newKey();
        $defaultPort = $secure ? 443 : 80;
        $request = "GET {$target} HTTP/1.1\r\n"
            . 'Host: ' . $authority . ($port === $defaultPort ? '' : ":{$port}") . "\r\n"
            . "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            . "Sec-WebSocket-Key: {$key}\r\nSec-WebSocket-Version: 13\r\n"
            . ($options->compression ? 'Sec-WebSocket-Extensions: ' . PerMessageDeflate::offer() . "\r\n" : '')
            . ($options->subprotocols !== [] ? 'Sec-WebSocket-Protocol: ' . \implode(', ', $options->subprotocols) . "\r\n" : '');
        foreach ($headers as $name => $value) {
            if (\preg_match('/[\r\n]/', $name . $value) === 1) {
                throw new WebSocketError("Invalid header {$name}");
            }
            $request .= "{$name}: {$value}\r\n";
        }
        try {
            [$deflate, $protocol] = Scheduler::get()->timeout(
                $options->handshakeTimeout,
                static fn () => self::handshake($socket, $request . "\r\n", $key, $options),
            );
        } catch (TimeoutException $e) {
            $socket->close();
            throw new WebSocketException("The WebSocket handshake with {$url} timed out", 0, $e);
        } catch (SocketException $e) {
            $socket->close();
            throw new WebSocketException("The WebSocket handshake with {$url} failed: {$e->getMessage()}", 0, $e);
        } catch (HandshakeException $e) {
            $socket->close();
            throw $e;
        }

        return new WebSocket($socket, false, $options, $deflate, $protocol);
    }

    /**
     * @return array{?PerMessageDeflate, ?string}
     * @throws HandshakeException|SocketException
     */
    private static function handshake(Socket $socket, string $request, string $key, WebSocketOptions $options): array
    {
        $socket->write($request);
        $head = $socket->readLine("\r\n\r\n", self::MAX_HEAD);
        if ($head === null || !\str_ends_with($head, "\r\n\r\n")) {
            throw new HandshakeException('The server closed the connection during the handshake');
        }
        $lines = \explode("\r\n", \rtrim($head));
        $status = \array_shift($lines);
        if (\preg_match('~^HTTP/1\.1 101(?: |$)~', $status) !== 1) {
            throw new HandshakeException("The server refused the WebSocket handshake: {$status}");
        }
        $fields = [];
        foreach ($lines as $line) {
            [$name, $value] = \array_pad(\explode(':', $line, 2), 2, '');
            $fields[\strtolower(\trim($name))][] = \trim($value);
        }
        $field = static fn (string $name): ?string => isset($fields[$name]) ? \implode(', ', $fields[$name]) : null;
        if (!Handshake::hasToken($field('upgrade'), 'websocket') || !Handshake::hasToken($field('connection'), 'upgrade')) {
            throw new HandshakeException('The 101 answer lacks "Upgrade: websocket" or "Connection: Upgrade"');
        }
        if ($field('sec-websocket-accept') !== Handshake::accept($key)) {
            throw new HandshakeException('The server answered with a wrong Sec-WebSocket-Accept');
        }
        $extensions = $field('sec-websocket-extensions');
        $deflate = null;
        if ($extensions !== null && $extensions !== '') {
            if (!$options->compression) {
                throw new HandshakeException("The server answered with extensions that were not offered: {$extensions}");
            }
            $deflate = PerMessageDeflate::fromResponse($extensions);
        }
        $protocol = $field('sec-websocket-protocol');
        if ($protocol !== null && !\in_array($protocol, $options->subprotocols, true)) {
            throw new HandshakeException("The server chose a subprotocol that was not offered: {$protocol}");
        }

        return [$deflate, $protocol];
    }

    /** @return array{bool, string, int, string} secure, host, port, request target */
    private static function parseUrl(string $url): array
    {
        $parts = \parse_url($url);
        $scheme = \strtolower($parts['scheme'] ?? '');
        if ($parts === false || !\in_array($scheme, ['ws', 'wss'], true) || !isset($parts['host'])) {
            throw new WebSocketError("Not a ws:// or wss:// URL: {$url}");
        }
        $secure = $scheme === 'wss';
        $target = ($parts['path'] ?? '') === '' ? '/' : $parts['path'];
        if (isset($parts['query'])) {
            $target .= '?' . $parts['query'];
        }

        return [$secure, \trim($parts['host'], '[]'), $parts['port'] ?? ($secure ? 443 : 80), $target];
    }
}
