<?php

declare(strict_types=1);

namespace Petrel\Tests\Support;

use Petrel\Socket\Socket;

use function Petrel\Socket\connect;

/**
 * A minimal HTTP/1.1 client for tests, on Petrel sockets (so many can run concurrently in
 * coroutines): sends raw bytes, reads responses framed by Content-Length, chunked encoding
 * or connection close.
 */
final class RawHttp
{
    public static function connect(string $address): Socket
    {
        return connect($address);
    }

    /** Sends one request on a new connection and returns the response. */
    public static function request(string $address, string $raw): RawResponse
    {
        $socket = self::connect($address);
        try {
            $socket->write($raw);

            return self::readResponse($socket) ?? throw new \RuntimeException('connection closed without a response');
        } finally {
            $socket->close();
        }
    }

    public static function get(string $address, string $target = '/', array $headers = []): RawResponse
    {
        $lines = "GET {$target} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n";
        foreach ($headers as $name => $value) {
            $lines .= "{$name}: {$value}\r\n";
        }

        return self::request($address, $lines . "\r\n");
    }

    /** Reads one response; null if the connection closed before any byte of it. */
    public static function readResponse(Socket $socket, bool $headRequest = false): ?RawResponse
    {
        $head = '';
        while (!\str_contains($head, "\r\n\r\n")) {
            $line = $socket->readLine("\n", 65536);
            if ($line === null) {
                if ($head === '') {
                    return null;
                }
                throw new \RuntimeException("connection closed inside a response head: {$head}");
            }
            $head .= $line;
            if ($head === "\r\n") {
                $head = '';
            }
        }
        $lines = \explode("\r\n", \rtrim($head));
        if (!\preg_match('#^HTTP/(1\.[01]) (\d{3}) ?(.*)$#', $lines[0], $m)) {
            throw new \RuntimeException("bad status line: {$lines[0]}");
        }
        $headers = [];
        foreach (\array_slice($lines, 1) as $line) {
            [$name, $value] = \explode(':', $line, 2) + [1 => ''];
            $headers[\strtolower($name)][] = \trim($value);
        }
        $status = (int) $m[2];
        $body = '';
        if ($headRequest || $status === 204 || $status === 304 || ($status >= 100 && $status < 200)) {
            return new RawResponse($status, $headers, '');
        }
        if (\in_array('chunked', \array_map('strtolower', $headers['transfer-encoding'] ?? []), true)) {
            while (true) {
                $sizeLine = $socket->readLine("\r\n") ?? throw new \RuntimeException('EOF in chunked body');
                $size = \hexdec(\trim(\explode(';', $sizeLine)[0]));
                if ($size === 0) {
                    while (($trailer = $socket->readLine("\r\n")) !== null && $trailer !== "\r\n") {
                    }
                    break;
                }
                $body .= $socket->readExactly((int) $size);
                $socket->readExactly(2);
            }
        } elseif (isset($headers['content-length'])) {
            $body = $socket->readExactly((int) $headers['content-length'][0]);
        } else {
            while (($data = $socket->read()) !== null) {
                $body .= $data;
            }
        }

        return new RawResponse($status, $headers, $body);
    }
}
