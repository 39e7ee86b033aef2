<?php

declare(strict_types=1);

namespace Petrel\Socket;

use Petrel\Coroutine\Scheduler;
use Petrel\Socket\Internal\Address;
use Petrel\Socket\Internal\HostResolver;

/**
 * Connects to "host:port", "tcp://host:port", "tls://host:port" or "unix:///path" without
 * blocking the worker: the coroutine waits for the connection (and the TLS handshake).
 *
 * @throws ConnectException refused, unreachable, unknown host, or timed out
 */
function connect(string $address, ConnectOptions $options = new ConnectOptions()): StreamSocket
{
    $uri = Address::toUri($address);
    $tls = $options->tls;
    if (\str_starts_with($uri, 'tls://')) {
        $tls ??= new TlsOptions();
        $uri = 'tcp://' . \substr($uri, 6);
    }
    $host = null;
    if (\str_starts_with($uri, 'tcp://')) {
        [$host, $port] = Address::hostPort($uri);
        $ip = HostResolver::resolve($host)[0];
        $uri = \str_contains($ip, ':') ? "tcp://[{$ip}]:{$port}" : "tcp://{$ip}:{$port}";
    }
    $context = \stream_context_create(['socket' => ['tcp_nodelay' => $options->noDelay]]);
    $stream = @\stream_socket_client($uri, $errno, $error, null, \STREAM_CLIENT_CONNECT | \STREAM_CLIENT_ASYNC_CONNECT, $context);
    if ($stream === false) {
        throw new ConnectException("Could not connect to {$address}: {$error}");
    }
    \stream_set_blocking($stream, false);

    $scheduler = Scheduler::get();
    $deadline = $scheduler->driver->now() + $options->connectTimeout;
    $suspension = $scheduler->suspension();
    $watcher = $timer = null;
    try {
        // In the try: should the driver refuse the timer, the watcher, which would fire each
        // tick on the connected stream, is cancelled and the stream closed all the same.
        $watcher = $scheduler->driver->onWritable($stream, static fn () => $suspension->resume());
        $timer = $scheduler->driver->delay($options->connectTimeout, static fn () => $suspension->throw(
            new ConnectException(\sprintf('Connecting to %s timed out after %s s', $address, $options->connectTimeout)),
        ));
        $suspension->suspend();
    } catch (\Throwable $error) {
        \fclose($stream);
        throw $error;
    } finally {
        if ($watcher !== null) {
            $scheduler->driver->cancel($watcher);
        }
        if ($timer !== null) {
            $scheduler->driver->cancel($timer);
        }
    }
    $remote = @\stream_socket_get_name($stream, true);
    if ($remote === false) {
        $reason = connectError($stream);
        \fclose($stream);
        throw new ConnectException("Could not connect to {$address}: {$reason}");
    }

    // The peer's name is kept now: once the peer is gone, the kernel no longer tells it,
    // and errors ("Write to … failed") must still say who it was.
    $socket = new StreamSocket($stream, $remote);
    if ($tls !== null) {
        // The handshake shares the connect timeout: a TLS client talking to a plain-text
        // port would otherwise wait forever for a ServerHello.
        $remaining = \max(0.001, $deadline - $scheduler->driver->now());
        try {
            $scheduler->timeout($remaining, static fn () => $socket->setupTls($tls, $host ?? 'localhost'));
        } catch (\Petrel\Coroutine\TimeoutException $timeout) {
            $socket->close();
            throw new ConnectException(\sprintf('TLS handshake with %s timed out (connect timeout %s s)', $address, $options->connectTimeout), 0, $timeout);
        }
    }

    return $socket;
}

/**
 * Listens on $address ("127.0.0.1:8080", "[::1]:0", "unix:///path").
 *
 * @throws SocketException e.g. "Address already in use"
 */
function listen(string $address, ServerOptions $options = new ServerOptions()): SocketServer
{
    return SocketServer::listen($address, $options);
}

/**
 * @internal the pending error of a failed non-blocking connect (SO_ERROR)
 * @param resource $stream
 */
function connectError(mixed $stream): string
{
    if (\function_exists('socket_import_stream')) {
        $socket = @\socket_import_stream($stream);
        if ($socket !== false) {
            $code = \socket_get_option($socket, \SOL_SOCKET, \SO_ERROR);
            if (\is_int($code) && $code !== 0) {
                return \socket_strerror($code);
            }
        }
    }

    return 'connection refused or reset';
}
