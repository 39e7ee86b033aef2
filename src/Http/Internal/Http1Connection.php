<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Coroutine\CancelledException;
use Petrel\Coroutine\Coroutine;
use Petrel\Http\FileBody;
use Petrel\Http\HttpException;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\Server;
use Petrel\Http\StreamBody;
use Petrel\Socket\SocketException;
use Petrel\Socket\StreamSocket;

use function Petrel\sleep;

/**
 * One HTTP/1.1 connection, driven by its own coroutine: read bytes, feed the parser, call
 * the handler for each complete request (in order, so pipelined requests are answered in
 * order), write the response, keep alive or close. Malformed input gets its 4xx/5xx answer
 * and the connection is closed; nothing here can take the worker down.
 *
 * @internal
 */
final class Http1Connection
{
    /** Requests served back to back without waiting for the client before yielding to the loop. */
    private const FAIRNESS_STREAK = 8;
    private const IDLE = 0;
    private const HEAD = 1;
    private const BODY = 2;
    private const BUSY = 3;

    /** Monotonic time after which the server's sweeper closes this connection. */
    public float $deadline = \INF;
    public ?Coroutine $coroutine = null;
    private int $phase = self::IDLE;
    private int $served = 0;
    private readonly int $maxRequests;
    private readonly float $writeTimeout;
    private readonly bool $gzip;

    public function __construct(
        public readonly int $id,
        private readonly StreamSocket $socket,
        private readonly Server $server,
    ) {
        $config = $server->config;
        $this->maxRequests = $config->maxRequestsPerConnection;
        $this->writeTimeout = $config->writeTimeout;
        $this->gzip = $config->gzip;
        $socket->keepReadWatcher();
    }

    public function run(): void
    {
        $parser = new RequestParser($this->server->config->limits, $this->socket->getRemoteAddress());
        $waits = $this->socket->readWaits();
        $streak = 0;
        try {
            while (($request = $this->readRequest($parser)) !== null) {
                if (!$this->respond($request)) {
                    break;
                }
                // A client whose next request is always there when we read (a fast load
                // generator on another core) would keep this coroutine running: the loop
                // would never poll and the worker's other connections would starve (p99 of
                // 200+ ms, seen in petrel bench). After a streak served without waiting,
                // let the loop run once.
                if ($this->socket->readWaits() !== $waits) {
                    $waits = $this->socket->readWaits();
                    $streak = 0;
                } elseif (++$streak >= self::FAIRNESS_STREAK) {
                    sleep(0);
                    $streak = 0;
                }
            }
        } catch (SocketException | CancelledException) {
            // The peer went away, a timeout closed the socket, or the server is aborting.
        } finally {
            $this->socket->close();
        }
    }

    /**
     * Graceful stop of a connection waiting for its next request: it gets $grace seconds, so
     * a request already on its way is still answered (with Connection: close) instead of
     * racing an abrupt close; the sweeper closes it after that.
     */
    public function closeWhenIdleFor(float $grace): void
    {
        if ($this->phase === self::IDLE) {
            $this->deadline = \min($this->deadline, \hrtime(true) * 1e-9 + $grace);
        }
    }

    public function close(): void
    {
        $this->socket->close();
    }

    /** Closes the socket and cancels the handler, whatever it is doing. */
    public function abort(): void
    {
        $this->socket->close();
        $this->coroutine?->cancel();
    }

    private function readRequest(RequestParser $parser): ?Request
    {
        $config = $this->server->config;
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
                $this->phase = self::IDLE;
                $this->deadline = \hrtime(true) * 1e-9 + ($this->served > 0 ? $config->idleTimeout : $config->headerTimeout);
                if ($this->server->isStopping()) {
                    $this->closeWhenIdleFor(Server::STOP_GRACE);
                }
            } elseif ($this->phase === self::IDLE || $this->phase === self::BUSY) {
                $this->phase = self::HEAD;
                $this->deadline = \hrtime(true) * 1e-9 + $config->headerTimeout;
            }
            if ($this->phase === self::HEAD && $parser->isReadingBody()) {
                $this->phase = self::BODY;
                $this->deadline = \hrtime(true) * 1e-9 + $config->bodyTimeout;
            }
            if ($parser->expectsContinue()) {
                $this->socket->write("HTTP/1.1 100 Continue\r\n\r\n");
                $parser->continueSent();
            }
            if ($this->phase === self::IDLE && $this->served > 0) {
                // Between keep-alive requests the next one is rarely here yet (the client
                // has not read our response): wait for the loop to say so instead of a
                // read that would come back empty. One syscall less per request.
                $this->socket->awaitReadable();
            }
            $data = $this->socket->read();
            if ($data === null) {
                return null;
            }
            $parser->feed($data);
        }
    }

    /** Writes the response; returns whether the connection stays open for another request. */
    private function respond(Request $request): bool
    {
        $server = $this->server;
        $response = $server->dispatch($request, $this->socket);
        $this->served++;
        $protocol = $request->getProtocolVersion();
        $isHead = $request->getMethod() === 'HEAD';
        $keepAlive = !$server->isStopping()
            && $this->served < $this->maxRequests
            && $request->isKeepAlive();
        if ($this->gzip) {
            $response = Gzip::maybeCompress($request, $response);
        }
        $encoder = $server->encoder;
        $body = $response->getBody();
        // The encoder decides too (a handler may say Connection: close, HTTP/1.0 cannot frame
        // a body of unknown length); skip asking it in the common case where neither applies.
        if ($keepAlive && (!\is_string($body) || $protocol !== '1.1' || isset($response->getHeaderMap()['connection']))) {
            $keepAlive = !$encoder->requiresClose($response, $protocol, true, $isHead);
        }
        $this->deadline = \hrtime(true) * 1e-9 + $this->writeTimeout;
        if (\is_string($body)) {
            $this->socket->write($encoder->encode($response, $protocol, $keepAlive, $isHead, DateCache::get()));
        } else {
            $this->socket->write($encoder->encodeHead($response, $protocol, $keepAlive, $isHead, DateCache::get()));
            if (ResponseEncoder::sendsBody($response, $isHead)) {
                $this->writeBody($body, $encoder->usesChunking($response, $protocol, $isHead));
            }
        }
        $server->accessLog?->log($request, $response);
        $this->phase = self::IDLE;

        return $keepAlive;
    }

    private function writeBody(\Petrel\Http\ResponseBody $body, bool $chunked): void
    {
        if ($body instanceof FileBody) {
            $file = @\fopen($body->getPath(), 'rb');
            if ($file === false) {
                throw new SocketException("Cannot open {$body->getPath()} to send it");
            }
            try {
                \fseek($file, $body->getOffset());
                $left = $body->getLength();
                while ($left > 0) {
                    $chunk = \fread($file, \min(262144, $left));
                    if ($chunk === false || $chunk === '') {
                        throw new SocketException("{$body->getPath()} ended early while sending it");
                    }
                    $left -= \strlen($chunk);
                    $this->socket->write($chunk);
                    $this->deadline = \hrtime(true) * 1e-9 + $this->writeTimeout;
                }
            } finally {
                \fclose($file);
            }

            return;
        }
        if ($body instanceof StreamBody) {
            foreach ($body->getChunks() as $chunk) {
                if ($chunk === '') {
                    continue;
                }
                $this->socket->write($chunked ? ResponseEncoder::chunk($chunk) : $chunk);
                $this->deadline = \hrtime(true) * 1e-9 + $this->writeTimeout;
            }
            if ($chunked) {
                $this->socket->write(ResponseEncoder::lastChunk());
            }
        }
    }

    private function sendError(HttpException $error): void
    {
        $status = $error->getStatus();
        $text = \Petrel\Http\Status::reasonPhrase($status);
        $detail = $error->getReason() !== $text ? ": {$error->getReason()}" : '';
        $response = Response::text("{$status} {$text}{$detail}\n", $status)->withHeader('Connection', 'close');
        try {
            $this->socket->write($this->server->encoder->encode($response, '1.1', false, false, DateCache::get()));
        } catch (SocketException) {
            // The client is gone; nothing to tell it.
        }
    }
}
