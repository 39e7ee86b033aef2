<?php

declare(strict_types=1);

namespace Petrel\Socket;

use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\Suspension;
use Petrel\Socket\Internal\Address;

/** A listening TCP or Unix socket that accepts connections as StreamSockets. */
final class SocketServer
{
    private ?int $watcher = null;
    private ?Suspension $acceptor = null;
    private bool $closed = false;
    private readonly string $address;
    /** The process that bound a Unix socket path removes it; forked copies leave it alone. */
    private ?int $pathOwnerPid = null;

    /** @param resource $server a listening stream socket */
    public function __construct(private readonly mixed $server)
    {
        \stream_set_blocking($server, false);
        $name = @\stream_socket_get_name($server, false);
        $this->address = $name === false ? '' : $name;
    }

    /**
     * Binds and listens on $address: "127.0.0.1:8080", "[::1]:0", "tcp://…", "unix:///path".
     * Port 0 picks a free port; getAddress() tells which.
     *
     * @throws SocketException with the OS reason, e.g. "Address already in use"
     */
    public static function listen(string $address, ServerOptions $options = new ServerOptions()): self
    {
        $uri = Address::toUri($address);
        $context = \stream_context_create(['socket' => [
            'backlog' => $options->backlog,
            'so_reuseport' => $options->reusePort,
            'tcp_nodelay' => $options->noDelay,
        ]]);
        if (\str_starts_with($uri, 'unix://')) {
            $path = \substr($uri, 7);
            if (\file_exists($path) && @\stream_socket_client($uri) === false) {
                @\unlink($path); // a stale socket file left by a dead process
            }
        }
        $server = @\stream_socket_server($uri, $errno, $error, \STREAM_SERVER_BIND | \STREAM_SERVER_LISTEN, $context);
        if ($server === false) {
            throw new SocketException("Could not listen on {$address}: {$error}" . ($errno !== 0 ? " (errno {$errno})" : ''));
        }

        $socketServer = new self($server);
        if (\str_starts_with($uri, 'unix://')) {
            $socketServer->pathOwnerPid = \getmypid() ?: null;
        }

        return $socketServer;
    }

    /** Waits for the next connection; null once the server is closed. */
    public function accept(): ?StreamSocket
    {
        $accepted = $this->acceptStream();

        return $accepted === null ? null : new StreamSocket($accepted[0], $accepted[1]);
    }

    /**
     * @internal accept() for a server that wraps its connections itself (the HTTP server's
     * Internal\ClientSocket): the connected stream and the peer's address; null once closed
     * @return array{resource, string}|null
     */
    public function acceptStream(): ?array
    {
        if ($this->acceptor !== null) {
            throw new SocketError('Another coroutine is already accepting on this server');
        }
        while (!$this->closed) {
            $client = @\stream_socket_accept($this->server, 0, $peer);
            if ($client !== false) {
                return [$client, (string) $peer];
            }
            $this->waitReadable();
        }

        return null;
    }

    /** Stops listening; a coroutine waiting in accept() gets null. */
    public function close(): void
    {
        if ($this->closed) {
            return;
        }
        $this->closed = true;
        if ($this->watcher !== null) {
            Scheduler::get()->driver->cancel($this->watcher); // the id stays: disable() on it is a no-op
        }
        $this->acceptor?->resume();
        $unixPath = $this->pathOwnerPid !== null && $this->pathOwnerPid === \getmypid() ? $this->address : null;
        if (\is_resource($this->server)) {
            \fclose($this->server); // a forked worker may already have closed its copy
        }
        if ($unixPath !== null) {
            @\unlink($unixPath);
        }
    }

    public function isClosed(): bool
    {
        return $this->closed;
    }

    /** The bound address, e.g. "127.0.0.1:54321". */
    public function getAddress(): string
    {
        return $this->address;
    }

    /**
     * @internal for the process manager (inheriting the socket across fork) and fast paths
     * @return resource
     */
    public function getResource(): mixed
    {
        return $this->server;
    }

    public function __destruct()
    {
        $this->close();
    }

    private function waitReadable(): void
    {
        $driver = Scheduler::get()->driver;
        $suspension = Scheduler::get()->suspension();
        if ($this->watcher === null) {
            $server = \WeakReference::create($this);
            $this->watcher = $driver->onReadable($this->server, static function () use ($server): void {
                $server->get()?->acceptor?->resume();
            });
        } else {
            $driver->enable($this->watcher);
        }
        $this->acceptor = $suspension;
        try {
            $suspension->suspend();
        } finally {
            $this->acceptor = null;
            $driver->disable($this->watcher);
        }
    }
}
