<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\ServerConfig;
use Throwable;

/**
 * What an Http1Connection needs of its server (Server implements it; tests fake it): the
 * settings, the encoder, the handler and the logs. Read once per connection, except
 * dispatch(), isStopping() and connectionClosed().
 *
 * @internal
 */
interface ConnectionHost
{
    public function config(): ServerConfig;

    public function encoder(): ResponseEncoder;

    public function accessLog(): ?AccessLog;

    /** The coroutines that serve its connections. */
    public function runners(): ConnectionRunners;

    /** Whether the server is shutting down: connections close after their current response. */
    public function isStopping(): bool;

    /**
     * Runs the handler for $request and returns its response (a handler exception is
     * already turned into a 500 and logged). $client is asked only whether its peer left.
     *
     * @throws \Petrel\Coroutine\CancelledException if the connection was aborted meanwhile
     */
    public function dispatch(Request $request, ConnectionSocket $client): Response;

    /**
     * A request refused before any handler saw it — a malformed or oversized head (400,
     * 413, 414, 431, 501, 505) or a connection over the cap (503) — after its answer was
     * written: counted and logged as the answered ones are, without a request. $bytes are
     * the answer's body's (its head left out), as the access logs give an answered one's.
     */
    public function refused(int $status, ?string $remote, int $bytes): void;

    /** Logs a failure tied to $request, as handler exceptions are logged. */
    public function logError(Throwable $error, Request $request): void;

    /**
     * $connection has ended, its socket closed: called once, at the end of its coroutine
     * or, for one parked between requests (no coroutine), from its close().
     */
    public function connectionClosed(Http1Connection $connection): void;
}
