<?php

declare(strict_types=1);

namespace Petrel\Http;

use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\Scheduler;
use Petrel\Coroutine\Semaphore;
use Petrel\Coroutine\WaitGroup;
use Petrel\Http\Internal\AccessLog;
use Petrel\Http\Internal\AfterSendResponse;
use Petrel\Http\Internal\ClientSocket;
use Petrel\Http\Internal\ConnectionHost;
use Petrel\Http\Internal\ConnectionRunners;
use Petrel\Http\Internal\ConnectionSocket;
use Petrel\Http\Internal\Http1Connection;
use Petrel\Http\Internal\ResponseEncoder;
use Petrel\Observability\JsonAccessLog;
use Petrel\Observability\Log;
use Petrel\Observability\RequestMetrics;
use Petrel\Socket\SocketServer;
use Throwable;

use function Petrel\go;
use function Petrel\sleep;

/**
 * The HTTP/1.1 server of one worker process: accepts connections on a listening socket and
 * serves each (Internal\Http1Connection: parses requests, calls the handler, writes the
 * responses) in a coroutine while it has something to do; a keep-alive connection waiting
 * for its next request holds none.
 *
 * Timeouts are enforced by one sweeper timer per server rather than a timer per read: each
 * connection keeps a deadline, and the sweeper closes those past it (twice a second: SWEEP_INTERVAL).
 *
 * Over 400 lines: accepting, the connection cap, dispatching (sync mode's lock included),
 * the sweeper and the drain of a stop all work on the same lists and counts.
 */
final class Server implements ConnectionHost
{
    /** Seconds an idle keep-alive connection still waits for a request once stopping. */
    public const STOP_GRACE = 1.0;
    /** How often deadlines are checked: timeouts fire up to this much late. */
    public const SWEEP_INTERVAL = 0.5;
    /** Connections accepted in a row before the loop runs (see serve()). */
    private const ACCEPT_BATCH = 16;

    /** @var array<int, Http1Connection> */
    private array $connections = [];
    private int $lastConnectionId = 0;
    private int $requests = 0;
    /** Connections counted against the cap (served, not evicted). */
    private int $open = 0;
    /** @var array<int, true> ids of the connections counted in $open */
    private array $counted = [];
    private int $rejected = 0;
    private int $evicted = 0;
    private bool $stopping = false;
    private ?SocketServer $listener = null;
    private readonly ?Semaphore $syncLock;
    private readonly WaitGroup $active;
    /** Made by serve(), on its scheduler (a worker's, made after its fork). */
    private ?ConnectionRunners $runners = null;
    private readonly ResponseEncoder $encoder;
    private readonly ?AccessLog $accessLog;
    /** The access log in JSON (ServerConfig::ACCESS_LOG_JSON): written here, not by the connection. */
    private readonly ?JsonAccessLog $jsonAccessLog;
    /** @var \Closure(Throwable, Request): void */
    private \Closure $errorLogger;
    /** @var list<\Closure(int): void> */
    private array $requestListeners = [];
    /** @var \Closure(Request): Response made once: a first-class callable is a new Closure each time */
    private readonly \Closure $responder;
    /** @var \Closure(Request): Response the handler: a typed closure itself, else its handle() */
    private readonly \Closure $handle;
    /** The scheduler serve() runs on (a worker's, made after its fork): dispatch() asks it per request. */
    private Scheduler $scheduler;

    /**
     * @param RequestMetrics|null $metrics where requests are counted (by method, status
     *        class, latency); null: not counted, not even timed
     */
    public function __construct(
        RequestHandler $handler,
        public readonly ServerConfig $config = new ServerConfig(),
        private readonly ?RequestMetrics $metrics = null,
    ) {
        $this->syncLock = $config->mode === ServerConfig::MODE_SYNC ? new Semaphore(1) : null;
        // Loaded now: `instanceof` a class not loaded yet looks it up by name on every
        // response (connections ask it of each): ~45 instructions a request, measured.
        \class_exists(AfterSendResponse::class);
        $this->active = new WaitGroup();
        $this->responder = $this->respond(...);
        $this->handle = ($handler instanceof ClosureHandler ? $handler->typedClosure() : null) ?? $handler->handle(...);
        $this->encoder = new ResponseEncoder();
        $json = $config->accessLog !== null && $config->accessLogFormat === ServerConfig::ACCESS_LOG_JSON;
        $this->accessLog = $config->accessLog !== null && !$json ? new AccessLog($config->accessLog) : null;
        $this->jsonAccessLog = $json && $config->accessLog !== null ? new JsonAccessLog($config->accessLog) : null;
        $this->errorLogger = Log::requestFailed(...);
    }

    /** Where handler exceptions are logged (with the request line); Observability\Log by default. */
    public function setErrorLogger(\Closure $logger): void
    {
        $this->errorLogger = $logger;
    }

    /** Called after each request with the worker's running total (used for max-requests). */
    public function onRequest(\Closure $listener): void
    {
        $this->requestListeners[] = $listener;
    }

    /**
     * Accepts and serves connections until stop() is called, then waits for the requests in
     * flight to finish (at most $drainTimeout seconds) and returns.
     *
     * It never stops accepting: at the connection cap it makes room the way nginx does,
     * closing the longest-idle keep-alive connection, and when none is idle it answers the
     * newcomer 503 (admit()). A client never waits unanswered in the accept queue.
     */
    public function serve(SocketServer $listener, float $drainTimeout = 30.0): void
    {
        $this->listener = $listener;
        $this->scheduler = Scheduler::get();
        $runners = $this->runners = new ConnectionRunners();
        $driver = $this->scheduler->driver;
        $sweeper = $driver->repeat(self::SWEEP_INTERVAL, $this->sweep(...));
        $driver->unreference($sweeper);
        $accepted = 0;
        try {
            while (!$this->stopping) {
                $client = $listener->acceptStream();
                if ($client === null) {
                    break;
                }
                $this->admit(new ClientSocket($client[0], $client[1]));
                // Let the loop run between batches of accepts. Workers share the listening
                // socket: one that drains the whole backlog takes every connection of a
                // burst (100 keep-alive clients on one sync worker, the other idle: half
                // the throughput). One accept per loop turn spread them, but a busy turn
                // (500 connections' requests) is long, and 1,000 clients connecting at
                // once then waited seconds in the backlog (wrk: ~150 timeouts at c=1000).
                if (++$accepted % self::ACCEPT_BATCH === 0) {
                    sleep(0);
                }
            }
            $this->drain($drainTimeout);
        } finally {
            $driver->cancel($sweeper);
            $runners->stop();
        }
    }

    /**
     * Graceful stop: no new connections, idle keep-alive connections are closed, busy ones
     * close after their current response. Safe to call from a signal callback.
     */
    public function stop(): void
    {
        if ($this->stopping) {
            return;
        }
        $this->stopping = true;
        $this->listener?->close();
        foreach ($this->connections as $connection) {
            $connection->stop(self::STOP_GRACE);
        }
    }

    public function isStopping(): bool
    {
        return $this->stopping;
    }

    /** @internal see ConnectionHost */
    public function config(): ServerConfig
    {
        return $this->config;
    }

    /** @internal see ConnectionHost */
    public function encoder(): ResponseEncoder
    {
        return $this->encoder;
    }

    /** @internal see ConnectionHost */
    public function accessLog(): ?AccessLog
    {
        return $this->accessLog;
    }

    /** @internal see ConnectionHost */
    public function runners(): ConnectionRunners
    {
        return $this->runners ??= new ConnectionRunners();
    }

    /** @internal see ConnectionHost: through the error logger (setErrorLogger()) */
    public function logError(Throwable $error, Request $request): void
    {
        ($this->errorLogger)($error, $request);
    }

    /** @internal see ConnectionHost: it leaves the list and the count; a drain waits no more for it */
    public function connectionClosed(Http1Connection $connection): void
    {
        unset($this->connections[$connection->id]);
        if (isset($this->counted[$connection->id])) {
            unset($this->counted[$connection->id]);
            --$this->open;
        }
        $this->active->done();
    }

    /**
     * @internal for the worker (Console\Internal\FatalErrorResponder), not a public API.
     *
     * The requests whose handler is running now (started and not returned; in sync mode not
     * those waiting for their turn), by the id of the coroutine running it: for a worker
     * that dies of a fatal error to answer the one that killed it (Console\Internal\
     * FatalErrorResponder). Found from the connections when asked, so that serving a
     * request pays nothing for it.
     *
     * @return array<int, Request>
     */
    public function requestsInHandlers(): array
    {
        $requests = [];
        foreach ($this->connections as $connection) {
            $handler = $connection->coroutine?->child;
            if ($handler !== null && $connection->request !== null) {
                $requests[$handler->id] = $connection->request;
            }
        }

        return $requests;
    }

    /**
     * Requests answered, connections open (served, rejected or being evicted), and since
     * start: connections turned away with a 503 at the cap, idle ones closed to make room.
     *
     * @return array{requests: int, connections: int, rejected: int, evicted: int}
     */
    public function stats(): array
    {
        return [
            'requests' => $this->requests,
            'connections' => \count($this->connections),
            'rejected' => $this->rejected,
            'evicted' => $this->evicted,
        ];
    }

    /**
     * @internal called by connections: runs the handler in a coroutine of its own (one at
     * a time in sync mode, its response's after-send callbacks included), so what a
     * request leases (pooled connections), defers and keeps in Context ends with the
     * request, not with the keep-alive connection. The coroutine
     * runs on the connection's fiber (the connection only waits for it meanwhile), which
     * saves a fiber switch each way; aborting the connection cancels it.
     */
    public function dispatch(Request $request, ConnectionSocket $client): Response
    {
        return $this->syncLock === null
            ? $this->scheduler->callAsChild($this->responder, [$request])
            : $this->dispatchInTurn($this->syncLock, $request, $client);
    }

    /** Sync mode's dispatch() (apart, so that coroutine mode's stays a few instructions). */
    private function dispatchInTurn(Semaphore $lock, Request $request, ConnectionSocket $client): Response
    {
        if (!$lock->tryAcquire()) {
            $lock->acquire();
            // It waited for the worker: if its client has left meanwhile (a closed browser
            // tab, a load generator that stopped), running it would only delay the requests
            // queued behind it. nginx logs these as 499.
            if ($client->peerClosed()) {
                $lock->release();
                throw new CancelledException("The client of {$request->getMethod()} {$request->getTarget()} closed the connection while it waited for the worker");
            }
        }
        try {
            $response = $this->scheduler->callAsChild($this->responder, [$request]);
        } catch (Throwable $error) {
            $lock->release();

            throw $error;
        }
        if (!$response instanceof AfterSendResponse) {
            $lock->release();

            return $response;
        }
        // The worker stays the app's until its after-send work is done too (Symfony's
        // kernel.terminate, then the reset of its services, which the next request needs):
        // the last callback releases it; the connection runs them however its write ends.
        return $response->withAfterSend(static function () use ($lock): void {
            $lock->release();
        });
    }

    public function refused(int $status, ?string $remote, int $bytes): void
    {
        $this->metrics?->refused($status);
        $this->accessLog?->refused($remote, $status, $bytes);
        $this->jsonAccessLog?->refused($remote, $status, $bytes);
    }

    /**
     * A request whose handler will never return, answered by its dying worker
     * (Console\Internal\FatalErrorResponder: a 500 for the one that died, 503s for the
     * others): counted and logged as an answered request is, the JSON log's duration null
     * (its start died with the handler's coroutine).
     */
    public function abandoned(Request $request, Response $response): void
    {
        $this->metrics?->abandoned($request->getMethod(), $response->getStatus());
        $this->accessLog?->log($request, $response);
        $this->jsonAccessLog?->log($request, $response, null);
    }

    private function respond(Request $request): Response
    {
        // Counting and timing cost two hrtime() calls and a few array increments (measured
        // with bench/micro/http-instructions.sh; see Observability\RequestMetrics).
        $metrics = $this->metrics;
        $start = 0;
        if ($metrics !== null || $this->jsonAccessLog !== null) {
            $metrics !== null && ++$metrics->inFlight;
            $start = \hrtime(true);
        }
        $response = null;
        try {
            return $response = ($this->handle)($request);
        } catch (HttpException $error) {
            // Bad input found while the handler read the request (a malformed form body,
            // an oversized upload): the client's fault, answered as the parser would.
            return $response = Response::text("{$error->getStatus()} {$error->getReason()}\n", $error->getStatus());
        } catch (Throwable $error) {
            ($this->errorLogger)($error, $request);

            return $response = $this->config->debug
                ? Response::text("500 Internal Server Error\n\n{$error}\n", 500)
                : Response::text("500 Internal Server Error\n", 500);
        } finally {
            $total = ++$this->requests;
            foreach ($this->requestListeners as $listener) {
                $listener($total);
            }
            // No response: the handler's coroutine is being destroyed with its worker (a
            // fatal error, exit()), and nothing was answered here: FatalErrorResponder
            // answers, counts and logs it (abandoned()).
            if ($start !== 0 && $response !== null) {
                $elapsed = \hrtime(true) - $start;
                $metrics?->record($request->getMethod(), $response->getStatus(), $elapsed);
                $this->jsonAccessLog?->log($request, $response, $elapsed);
            }
        }
    }

    /**
     * Starts serving a connection. Under the cap, or after evicting the longest-idle
     * connection, it is served (and counted: $open); otherwise it is rejected with a 503
     * and a lingering close, outside the count but in the list (the sweeper and stop()
     * still see it). Past the cap plus maxRejecting sockets in all, a newcomer is just
     * closed: rejects cannot pile up (nor, under select, pass FD_SETSIZE).
     */
    private function admit(ClientSocket $socket): void
    {
        $max = $this->config->maxConnections;
        $served = $this->open < $max || $this->evictIdle();
        if (!$served && \count($this->connections) >= $max + ($this->config->maxRejecting ?? $max)) {
            ++$this->rejected;
            $socket->close();

            return;
        }
        $connection = new Http1Connection(++$this->lastConnectionId, $socket, $this);
        $this->connections[$connection->id] = $connection;
        $this->active->add();
        if ($served) {
            ++$this->open;
            $this->counted[$connection->id] = true;
            $connection->start();
        } else {
            ++$this->rejected;
            $connection->coroutine = go($connection->reject(...));
        }
    }

    /** Closes the connection idle the longest, if any; it no longer counts against the cap. */
    private function evictIdle(): bool
    {
        $oldest = null;
        foreach ($this->connections as $id => $connection) {
            if (isset($this->counted[$id]) && $connection->isIdle() && ($oldest === null || $connection->idleSince < $oldest->idleSince)) {
                $oldest = $connection;
            }
        }
        if ($oldest === null) {
            return false;
        }
        unset($this->counted[$oldest->id]);
        --$this->open;
        ++$this->evicted;
        $oldest->close();

        return true;
    }

    private function drain(float $timeout): void
    {
        $this->stop();
        try {
            $this->active->wait($timeout);
        } catch (\Petrel\Coroutine\TimeoutException) {
            foreach ($this->connections as $connection) {
                $connection->abort();
            }
            try {
                $this->active->wait(1.0);
            } catch (\Petrel\Coroutine\TimeoutException) {
                // A handler that ignores cancellation; the worker exits regardless.
            }
        }
    }

    private function sweep(): void
    {
        $now = \hrtime(true) * 1e-9;
        foreach ($this->connections as $connection) {
            if ($connection->deadline < $now) {
                $connection->close();
            }
        }
    }
}
