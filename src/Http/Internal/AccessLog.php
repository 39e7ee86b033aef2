<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\FileBody;
use Petrel\Http\Request;
use Petrel\Http\Response;

/**
 * One line per request in the combined log format nginx and Apache use, appended to a
 * file or stream; the host field is the client's address without its port ("-" when
 * unknown). Writes are small appends to a local file (not worth a coroutine switch).
 *
 * @internal
 */
final class AccessLog
{
    /** @var resource */
    private $stream;

    public function __construct(string $target)
    {
        $this->stream = self::open($target);
    }

    /**
     * The access log's file or stream opened for appending (also for the JSON format,
     * Observability\JsonAccessLog).
     *
     * @return resource
     */
    public static function open(string $target): mixed
    {
        $stream = @\fopen($target, 'ab');
        if ($stream === false) {
            $reason = FopenFailure::reason('');
            throw new \RuntimeException("cannot open the access log {$target}" . ($reason !== '' ? ": {$reason}" : ''));
        }

        return $stream;
    }

    /**
     * A request refused before any handler saw it: no request line ("-"), as nginx logs a
     * bad one; $bytes are its answer's body's, as for an answered one (`%b`, nginx's
     * $body_bytes_sent).
     */
    public function refused(?string $remote, int $status, int $bytes): void
    {
        \fwrite($this->stream, \sprintf("%s - - [%s] \"-\" %d %d \"-\" \"-\"\n", PeerAddress::forLog($remote) ?? '-', \date('d/M/Y:H:i:s O'), $status, $bytes));
    }

    public function log(Request $request, Response $response): void
    {
        $body = $response->getBody();
        $bytes = \is_string($body) ? \strlen($body) : ($body instanceof FileBody ? $body->getLength() : '-');
        \fwrite($this->stream, \sprintf(
            "%s - - [%s] \"%s %s HTTP/%s\" %d %s \"%s\" \"%s\"\n",
            PeerAddress::forLog($request->getRemoteAddress()) ?? '-', // the address without the port, as nginx's $remote_addr
            \date('d/M/Y:H:i:s O'),
            $request->getMethod(),
            \addcslashes($request->getTarget(), "\"\\\x00..\x1f\x7f"),
            $request->getProtocolVersion(),
            $response->getStatus(),
            $bytes,
            \addcslashes($request->getHeader('Referer') ?? '-', "\"\\\x00..\x1f\x7f"),
            \addcslashes($request->getHeader('User-Agent') ?? '-', "\"\\\x00..\x1f\x7f"),
        ));
    }
}
