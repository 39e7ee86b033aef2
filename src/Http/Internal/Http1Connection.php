<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\Coroutine;
use Petrel\Http\HttpException;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\ResponseBody;
use Petrel\Http\Server;
use Petrel\Http\ServerConfig;
use Petrel\Http\UpgradeContext;
use Petrel\Socket\SocketException;

use function Petrel\sleep;

/**
 * One HTTP/1.1 connection: read bytes, feed the parser, call the handler for each complete
 * request (in order, so pipelined requests are answered in order), write the response,
 * keep alive or close. Malformed input gets its 4xx/5xx answer and the connection is
 * closed; nothing here can take the worker down. A 101 response hands the socket to its
 * upgrade handler (Response::upgrade()) for the rest of its life.
 *
 * A coroutine serves it only while it has something to do (ConnectionRunners lends one):
 * from its accept to its first request's end, then from each keep-alive request to the
 * next wait for the client. That wait holds no coroutine: the connection parks (see
 * readRequest()), the socket calls back when bytes come, and a runner continues. A worker
 * with 1,000 keep-alive clients thus runs on a few hot fibers instead of cycling through
 * 1,000 stacks (cache misses). Its state (parser, phase, deadline) is this object's.
 *
 * A close while the client may still be sending (an error answer, unread request bytes) is
 * a lingering close, as nginx does it: the response, a half-close, then the client's bytes
 * are read and dropped for a bounded time and byte count, so that closing with unread bytes
 * does not send a reset that can destroy the response before the client reads it.
 *
 * It sees its server through ConnectionHost and its socket through ConnectionSocket, so
 * tests drive it in memory (MemorySocket). The server reads $deadline (the sweeper closes
 * the connection past it) and isIdle()/$idleSince (which connection to evict at the cap),
 * and hears of its end through ConnectionHost::connectionClosed(), once, whether it ended in
 * its coroutine or was closed while parked.
 *
 * Why one class of ~530 lines: reading, parking, responding (after-send callbacks
 * included), upgrading and lingering are one state machine over the same fields (phase,
 * deadline, parser, socket) that the server reads; what needs none of them lives apart
 * (RequestParser, ResponseEncoder, BodyWriter, ConnectionRunners).
 *
 * @internal
 */
final class Http1Connection
{
    /** Requests served back to back without waiting for the client before yielding to the loop. */
    public const FAIRNESS_STREAK = 8;
    /** Seconds a client turned away at the connection cap is told to wait (Retry-After). */
    public const RETRY_AFTER = 1;
    private const IDLE = 0;
    private const HEAD = 1;
    private const BODY = 2;
    private const BUSY = 3;
    private const UPGRADED = 4;
    private const LINGERING = 5;

    /** Monotonic time after which the server's sweeper closes this connection. */
    public float $deadline = \INF;
    /** Monotonic time since when it waits for a request (meaningful while isIdle()). */
    public float $idleSince;
    /** The coroutine serving it (abort() cancels it); null while parked. */
    public ?Coroutine $coroutine = null;
    /**
     * The request handed to the handler, until the handler returns: while $coroutine runs
     * it in a child coroutine (Server::dispatch()), the request inside the APP (read by
     * Server::requestsInHandlers()).
     */
    public ?Request $request = null;
    private int $phase = self::IDLE;
    private int $served = 0;
    /** Waiting for the client's next request with no coroutine (see readRequest()). */
    private bool $parked = false;
    private bool $aborted = false;
    /** Set once the connection is upgraded: how its handler hears of a stop. */
    private ?UpgradeContext $upgrade = null;
    /** The request whose response has after-send callbacks, and that response, while it is written. */
    private ?Request $sendingFor = null;
    private ?AfterSendResponse $sending = null;
    /** The client may still be sending: close by lingering. */
    private bool $linger = false;
    /**
     * The server is stopping: responses say Connection: close, no lingering, an idle
     * connection closes after a grace. Read from the host once, then set by stop(): a field
     * read where asking the host would be two calls per request.
     */
    private bool $stopping;
    private readonly int $maxRequests;
    private readonly float $writeTimeout;
    private readonly bool $gzip;
    private readonly ServerConfig $config;
    private readonly RequestParser $parser;
    private readonly ResponseEncoder $encoder;
    /**
     * Queues this connection for a runner (ConnectionRunners::starter(), made once): start()
     * calls it, and so does the socket when a parked connection's client sends. Null once
     * closed, so that the connection does not hold itself in a cycle.
     */
    private ?\Closure $resume;
    private readonly ?AccessLog $accessLog;
    /** The Date header of responses sent in second $dateSecond (see respond()). */
    private string $date = '';
    private int $dateSecond = -1;

    public function __construct(
        public readonly int $id,
        private readonly ConnectionSocket $socket,
        private readonly ConnectionHost $host,
    ) {
        $this->config = $config = $host->config();
        $this->parser = new RequestParser($config->limits, $socket->getRemoteAddress());
        $this->encoder = $host->encoder();
        $this->resume = $host->runners()->starter($this);
        $this->accessLog = $host->accessLog();
        $this->maxRequests = $config->maxRequestsPerConnection;
        $this->writeTimeout = $config->writeTimeout;
        $this->gzip = $config->gzip;
        $this->idleSince = \hrtime(true) * 1e-9;
        $this->deadline = $this->idleSince + $config->headerTimeout;
        $this->stopping = $host->isStopping();
    }

    /** Has a runner serve the connection (serve()), from its accept. */
    public function start(): void
    {
        if ($this->resume !== null) {
            ($this->resume)();
        }
    }

    /**
     * Serves requests on $coroutine (a runner's) until the connection ends or parks. The
     * fairness streak starts at 0 each time, as it did after a wait for the client.
     */
    public function serve(Coroutine $coroutine): void
    {
        if ($this->resume === null) {
            return; // closed while its runner was on its way
        }
        $this->coroutine = $coroutine;
        $streak = 0;
        try {
            while (($request = $this->readRequest()) !== null) {
                if (!$this->respond($request)) {
                    $this->linger = $this->linger || $this->parser->hasPartialRequest();
                    break;
                }
                if (!$this->parser->hasPartialRequest()) {
                    // Nothing of a next request read (the usual keep-alive case): park now,
                    // as readRequest() would after asking the parser again, two calls more.
                    $this->park();

                    return;
                }
                // A client whose next request is always there when we read (a fast load
                // generator on another core) would keep this coroutine running: the loop
                // would never poll and the worker's other connections would starve (p99 of
                // 200+ ms, seen in petrel bench). After a streak served without waiting,
                // let the loop run once.
                if (++$streak >= self::FAIRNESS_STREAK) {
                    sleep(0);
                    $streak = 0;
                }
            }
            if ($this->linger) {
                $this->lingerBeforeClose();
            }
        } catch (SocketException | CancelledException) {
            // The peer went away, a timeout closed the socket, or the server is aborting.
        } finally {
            if (!$this->parked) {
                if ($this->sending !== null) {
                    $this->runAfterSend(); // the write failed: they run all the same
                }
                $this->end();
            }
        }
    }

    /**
     * Instead of start(), for a connection the server cannot take (at its cap, nothing idle
     * to evict): 503 with Retry-After, without reading the request, and a lingering close.
     */
    public function reject(): void
    {
        $this->phase = self::BUSY;
        $body = "503 Service Unavailable\n";
        $response = Response::text($body, 503)
            ->withHeader('Connection', 'close')
            ->withHeader('Retry-After', (string) self::RETRY_AFTER);
        try {
            $this->deadline = \hrtime(true) * 1e-9 + $this->writeTimeout;
            $this->socket->write($this->encoder->encode($response, '1.1', false, false, DateCache::get()));
            $this->host->refused(503, $this->socket->getRemoteAddress(), \strlen($body));
            $this->lingerBeforeClose();
        } catch (SocketException | CancelledException) {
            // Gone already.
        } finally {
            $this->end();
        }
    }

    /**
     * Graceful stop (the server calls it on each connection): a connection waiting for its
     * next request, or with part of a head read, gets $grace seconds, so a request already
     * on its way is still answered (with Connection: close) instead of racing an abrupt
     * close; the sweeper closes it after that (a client that stalled mid-head no longer
     * holds the stop for the graceful timeout). A lingering one closes now. An upgraded
     * one's handler is told (UpgradeContext::onStop()); a busy one finishes its response,
     * then gets the grace. A body on its way is a request in flight: it has its body
     * timeout, within the graceful timeout.
     */
    public function stop(float $grace): void
    {
        $this->stopping = true;
        if ($this->phase === self::IDLE || $this->phase === self::HEAD) {
            $this->deadline = \min($this->deadline, \hrtime(true) * 1e-9 + $grace);
        } elseif ($this->phase === self::LINGERING) {
            $this->socket->close();
        } elseif ($this->phase === self::UPGRADED) {
            $this->upgrade?->stop();
        }
    }

    /** Waiting for a request, nothing of it read yet: safe to close to make room. */
    public function isIdle(): bool
    {
        return $this->phase === self::IDLE;
    }

    /** Closes the socket: a coroutine waiting on it ends; a parked connection ends here. */
    public function close(): void
    {
        if ($this->parked) {
            $this->parked = false;
            $this->end();
        } else {
            $this->socket->close();
        }
    }

    /** Closes the socket and cancels the handler, whatever it is doing. */
    public function abort(): void
    {
        $this->aborted = true;
        $this->close();
        $this->coroutine?->cancel();
    }

    private function end(): void
    {
        $this->socket->close();
        $this->resume = $this->coroutine = null;
        $this->host->connectionClosed($this);
    }

    private function readRequest(): ?Request
    {
        $config = $this->config;
        $parser = $this->parser;
        if ($this->parked) {
            // Resumed (see park()): the client's next request, or its EOF, is there to read.
            $this->parked = false;
            $data = $this->socket->read();
            if ($data === null) {
                return null;
            }
            $parser->feed($data);
        }
        while (true) {
            try {
                $request = $parser->next();
            } catch (HttpException $error) {
                $this->sendError($error);

                return null;
            }
            if ($request !== null) {
                $this->phase = self::BUSY;
                $this->deadline = \INF;

                return $request;
            }
            if (!$parser->hasPartialRequest()) {
                if ($this->served > 0) {
                    $this->park();

                    return null;
                }
                if ($this->phase !== self::IDLE) {
                    $this->phase = self::IDLE;
                    $this->idleSince = \hrtime(true) * 1e-9;
                    $this->deadline = $this->idleSince + $config->headerTimeout; // no request yet
                }
                if ($this->stopping) {
                    $this->stop(Server::STOP_GRACE);
                }
            } elseif ($this->phase === self::IDLE || $this->phase === self::BUSY) {
                $this->phase = self::HEAD;
                $this->deadline = \hrtime(true) * 1e-9 + $config->headerTimeout;
                if ($this->stopping) {
                    $this->stop(Server::STOP_GRACE);
                }
            }
            if ($this->phase === self::HEAD && $parser->isReadingBody()) {
                $this->phase = self::BODY;
                $this->deadline = \hrtime(true) * 1e-9 + $config->bodyTimeout;
            }
            // Only a head whose body is still to come can expect 100-continue: phase BODY.
            if ($this->phase === self::BODY && $parser->expectsContinue()) {
                $this->socket->write(ResponseEncoder::CONTINUE);
                $parser->continueSent();
            }
            $data = $this->socket->read();
            if ($data === null) {
                return null;
            }
            $parser->feed($data);
        }
    }

    /**
     * Between keep-alive requests the next one is rarely here yet (the client has not read
     * our response): wait until the loop says it is, instead of a read that would come back
     * empty (a syscall), and give the coroutine back (see the class comment). The socket
     * calls $resume, and a runner's serve() continues at the top of readRequest().
     */
    private function park(): void
    {
        if ($this->phase !== self::IDLE) {
            $this->phase = self::IDLE;
            $this->idleSince = \hrtime(true) * 1e-9;
            $this->deadline = $this->idleSince + $this->config->idleTimeout;
        }
        if ($this->stopping) {
            $this->stop(Server::STOP_GRACE);
        }
        \assert($this->resume !== null);
        $this->socket->whenReadable($this->resume);
        $this->parked = true;
        $this->coroutine = null;
    }

    /** Writes the response; returns whether the connection stays open for another request. */
    private function respond(Request $request): bool
    {
        $this->request = $request;
        $response = $this->host->dispatch($request, $this->socket);
        $this->request = null;
        $this->served++;
        if ($response instanceof AfterSendResponse) {
            $this->sendingFor = $request;
            $this->sending = $response;
        }
        // A 101 always has a Connection header (Response makes sure), so the common case
        // (none) skips asking for the status: a call less per request.
        $headers = $response->getHeaderMap();
        if (isset($headers['connection']) && $response->getStatus() === 101) {
            if ($this->upgrade($request, $response)) {
                return false;
            }
            $response = Response::text("500 Internal Server Error\n", 500)->withHeader('Connection', 'close');
        }
        $protocol = $request->getProtocolVersion();
        $isHead = $request->getMethod() === 'HEAD';
        $keepAlive = !$this->stopping
            && $this->served < $this->maxRequests
            && $request->isKeepAlive();
        if ($this->gzip) {
            $response = Gzip::maybeCompress($request, $response);
            $headers = $response->getHeaderMap();
        }
        $encoder = $this->encoder;
        $body = $response->getBody();
        // The encoder decides too (a handler may say Connection: close, HTTP/1.0 cannot frame
        // a body of unknown length); skip asking it in the common case where neither applies.
        if ($keepAlive && (!\is_string($body) || $protocol !== '1.1' || isset($headers['connection']))) {
            $keepAlive = !$encoder->requiresClose($response, $protocol, true, $isHead);
        }
        $this->deadline = \hrtime(true) * 1e-9 + $this->writeTimeout;
        // DateCache::get() once a second, not per response: a call less per request.
        if (($now = \time()) !== $this->dateSecond) {
            $this->dateSecond = $now;
            $this->date = DateCache::get($now);
        }
        if (\is_string($body)) {
            $this->socket->write($encoder->encode($response, $protocol, $keepAlive, $isHead, $this->date));
        } else {
            $keepAlive = $this->respondInChunks($request, $response, $body, $protocol, $keepAlive, $isHead);
        }
        $this->accessLog?->log($request, $response);
        if ($this->sending !== null) {
            $this->runAfterSend();
        }

        return $keepAlive; // the phase stays BUSY (readRequest() set it) until no partial request is left
    }

    /**
     * The after-send callbacks of the response just written (Response::withAfterSend()),
     * or whose write failed: each runs, one that throws is logged (not when the server
     * aborted the connection: its cancellation ends them too).
     */
    private function runAfterSend(): void
    {
        $request = $this->sendingFor;
        $callbacks = $this->sending?->getAfterSend() ?? [];
        $this->sendingFor = $this->sending = null;
        \assert($request !== null);
        $this->deadline = \INF; // they own their time, as a handler does
        foreach ($callbacks as $callback) {
            try {
                $callback();
            } catch (\Throwable $error) {
                if (!$this->aborted) {
                    $this->host->logError($error, $request);
                }
            }
        }
    }

    /**
     * A file or stream body: the head, then the body in chunks, each write under the write
     * timeout. Returns whether the connection stays open: not after a body that failed once
     * its head was out (a stream that threw, or gave more or fewer bytes than its length),
     * which is logged; no 500 can replace the head, and closing tells the client the body
     * is cut. (Apart from respond() for its try: inside respond(), it cost every hello
     * request ~200 instructions, measured with bench/micro/http-instructions.sh.)
     */
    private function respondInChunks(Request $request, Response $response, ResponseBody $body, string $protocol, bool $keepAlive, bool $isHead): bool
    {
        $encoder = $this->encoder;
        $this->socket->write($encoder->encodeHead($response, $protocol, $keepAlive, $isHead, $this->date));
        if (!ResponseEncoder::sendsBody($response, $isHead)) {
            return $keepAlive;
        }
        try {
            BodyWriter::write($this->socket, $body, $encoder->usesChunking($response, $protocol, $isHead), function (bool $writing): void {
                $this->deadline = $writing ? \hrtime(true) * 1e-9 + $this->writeTimeout : \INF;
            });
        } catch (SocketException | CancelledException $gone) {
            throw $gone;
        } catch (\Throwable $error) {
            $this->host->logError($error, $request);

            return false;
        }

        return $keepAlive;
    }

    /**
     * A 101: writes its head, then runs its upgrade handler on this coroutine with the
     * socket and the bytes read past the request, outside HTTP (no deadline: the handler
     * owns its timeouts). Returns false, writing nothing, for a misuse (no handler, an
     * HTTP/1.0 request), which is logged and answered 500.
     */
    private function upgrade(Request $request, Response $response): bool
    {
        $handler = $response->getUpgradeHandler();
        if ($handler === null || $request->getProtocolVersion() !== '1.1') {
            $this->host->logError(new \LogicException($handler === null
                ? 'The handler answered 101 Switching Protocols without an upgrade handler: use Response::upgrade()'
                : "The handler answered 101 Switching Protocols to an HTTP/{$request->getProtocolVersion()} request"), $request);

            return false;
        }
        $this->deadline = \hrtime(true) * 1e-9 + $this->writeTimeout;
        $this->socket->write($this->encoder->encodeHead($response, '1.1', true, false, DateCache::get()));
        $this->accessLog?->log($request, $response);
        $this->phase = self::UPGRADED;
        $this->deadline = \INF;
        $this->upgrade = new UpgradeContext();
        if ($this->stopping) {
            $this->upgrade->stop();
        }
        try {
            $handler($this->socket, $this->parser->takeBuffered(), $this->upgrade);
        } catch (\Throwable $error) {
            if (!$this->aborted) {
                $this->host->logError($error, $request);
            }
        }

        return true;
    }

    /**
     * Half-closes, then reads and drops what the client still sends, until it closes, or
     * lingerTimeout passes without a byte, or lingerTime in all, or lingerBytes were read
     * (the sweeper enforces the times through $deadline). Not when the server is stopping.
     */
    private function lingerBeforeClose(): void
    {
        if ($this->stopping) {
            return;
        }
        $config = $this->config;
        $this->phase = self::LINGERING;
        $now = \hrtime(true) * 1e-9;
        $until = $now + $config->lingerTime;
        $this->deadline = \min($until, $now + $config->lingerTimeout);
        $this->socket->end();
        $left = $config->lingerBytes;
        while ($left > 0 && ($data = $this->socket->read()) !== null) {
            $left -= \strlen($data);
            $this->deadline = \min($until, \hrtime(true) * 1e-9 + $config->lingerTimeout);
        }
    }

    private function sendError(HttpException $error): void
    {
        $status = $error->getStatus();
        $text = \Petrel\Http\Status::reasonPhrase($status);
        $detail = $error->getReason() !== $text ? ": {$error->getReason()}" : '';
        $body = "{$status} {$text}{$detail}\n";
        $response = Response::text($body, $status)->withHeader('Connection', 'close');
        $this->deadline = \hrtime(true) * 1e-9 + $this->writeTimeout;
        $this->socket->write($this->encoder->encode($response, '1.1', false, false, DateCache::get()));
        $this->linger = true;
        $this->host->refused($status, $this->socket->getRemoteAddress(), \strlen($body));
    }
}
