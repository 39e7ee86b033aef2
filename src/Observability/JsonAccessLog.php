<?php

declare(strict_types=1);

namespace Petrel\Observability;

use Petrel\Http\FileBody;
use Petrel\Http\Internal\AccessLog;
use Petrel\Http\Internal\PeerAddress;
use Petrel\Http\Request;
use Petrel\Http\Response;

/**
 * The access log as one JSON object per line, for log shippers:
 *
 *     {"time":"2025-01-31T12:00:00+00:00","pid":4242,"request_id":"4242-17","remote":"127.0.0.1",
 *      "method":"GET","target":"/users","protocol":"1.1","status":200,"bytes":512,
 *      "duration_ms":1.234,"referer":null,"user_agent":"curl/8.5.0"}
 *
 * request_id is the one on the worker's log lines for the same request (Log::requestId()).
 * remote is the client's address without the port, as nginx's $remote_addr has it ("::1"
 * for IPv6); null when unknown, as for a unix-socket peer (PHP does not name one).
 * Written when the handler returns (so the time is the handler's; a streamed body's bytes
 * are null). A request answered by its dying worker (a fatal error, exit(): a 500 for the
 * one that died, 503s for the others) has its line then, duration_ms null.
 */
final class JsonAccessLog
{
    /** @var resource */
    private $stream;

    public function __construct(string $target)
    {
        $this->stream = AccessLog::open($target);
    }

    /** A request refused before any handler saw it: method, target and protocol null; bytes its answer's body's. */
    public function refused(?string $remote, int $status, int $bytes): void
    {
        \fwrite($this->stream, \json_encode([
            'time' => \date('c'),
            'pid' => \getmypid(),
            'request_id' => null,
            'remote' => PeerAddress::forLog($remote),
            'method' => null,
            'target' => null,
            'protocol' => null,
            'status' => $status,
            'bytes' => $bytes,
            'duration_ms' => null,
            'referer' => null,
            'user_agent' => null,
        ], \JSON_UNESCAPED_SLASHES | \JSON_INVALID_UTF8_SUBSTITUTE) . "\n");
    }

    /** $nanoseconds null: not known (a request answered by its dying worker, Http\Server::abandoned()). */
    public function log(Request $request, Response $response, ?int $nanoseconds): void
    {
        $body = $response->getBody();
        \fwrite($this->stream, \json_encode([
            'time' => \date('c'),
            'pid' => \getmypid(),
            'request_id' => Log::requestId(),
            'remote' => PeerAddress::forLog($request->getRemoteAddress()),
            'method' => $request->getMethod(),
            'target' => $request->getTarget(),
            'protocol' => $request->getProtocolVersion(),
            'status' => $response->getStatus(),
            'bytes' => \is_string($body) ? \strlen($body) : ($body instanceof FileBody ? $body->getLength() : null),
            'duration_ms' => $nanoseconds === null ? null : \round($nanoseconds / 1e6, 3),
            'referer' => $request->getHeader('Referer'),
            'user_agent' => $request->getHeader('User-Agent'),
        ], \JSON_UNESCAPED_SLASHES | \JSON_INVALID_UTF8_SUBSTITUTE) . "\n");
    }
}
