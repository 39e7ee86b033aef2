<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\HttpException;
use Petrel\Http\HttpLimits;
use Petrel\Http\Request;

/**
 * Incremental HTTP/1.1 request parser (RFC 9112): bytes in, requests out, no I/O.
 *
 * feed() appends bytes; next() returns the next complete request or null when more bytes
 * are needed, and throws HttpException on malformed input — after that the stream cannot
 * be trusted, so the connection answers with the exception's status and closes; next()
 * keeps throwing the same exception.
 *
 * The buffer is one string with a read offset. A head is located with one strpos for the
 * blank line, resumed where the last search stopped when bytes trickle in. The common
 * request (a head arriving whole, no body) costs one strpos, one explode of the lines, a
 * few whole-head checks, a loop over the fields without regex, and one object: the Request
 * (a copy of a blank one). A head equal to the last one is not parsed again, and one
 * without a body is not checked again either: its request is a copy of the last one's.
 *
 * Framing follows RFC 9112 §6: Transfer-Encoding other than exactly "chunked" → 501,
 * Transfer-Encoding with Content-Length or on HTTP/1.0 → 400, conflicting or non-numeric
 * Content-Length → 400, otherwise no body. HTTP/1.1 requests without exactly one Host
 * field are rejected with 400 (RFC 9112 §3.2 "MUST respond with 400").
 *
 * The requests and the error status are a function of the bytes alone, whatever the reads
 * were: checks that run on a partial head (HeadSyntax::prefixError()) also decide the
 * status of a complete head that fails, and partial lines are measured without the bytes
 * that may begin their line end (tests/Unit/Http/RequestParserSplitTest.php).
 */
final class RequestParser
{
    private const HEAD = 0;
    private const LENGTH_BODY = 1;
    private const CHUNKED_BODY = 2;

    private const METHODS = [
        'GET' => true, 'POST' => true, 'HEAD' => true, 'PUT' => true, 'DELETE' => true,
        'OPTIONS' => true, 'PATCH' => true, 'CONNECT' => true, 'TRACE' => true,
    ];

    private string $buffer = '';

    private int $offset = 0;

    /** Absolute position where the search for the end of the head resumes. */
    private int $scanFrom = 0;

    private int $state = self::HEAD;

    private ?HttpException $failure = null;

    /** The parts of the last head parsed ($lastHead), the request whose body is read included. */
    private string $method = '';

    private string $target = '';

    private string $version = '';

    /** @var array<string, list<string>> */
    private array $headers = [];

    private int $remaining = 0;

    private ?BodySink $sink = null;

    private ?ChunkedDecoder $chunked = null;

    private bool $expectContinue = false;

    /**
     * The last head parsed, its parts in $method, $target, $version and $headers: a
     * keep-alive client that sends the same head again (load generators, pollers, health
     * checks, an API client's repeated call) gets them without a second parse. The parts
     * are a function of the head's bytes (and of the limits, fixed per parser); only a head
     * that parsed without error is remembered.
     */
    private ?string $lastHead = null;

    /**
     * The request of $lastHead when that head has no body and passed the checks that
     * follow the parse (Host, framing): the same head again is a clone of it, with no
     * check repeated and no field written. Never handed out itself, so nothing caches a
     * derived value (path, query, cookies) on it.
     */
    private ?Request $lastBodiless = null;

    /** Its head and the blank line: the bytes of that request ('' while there is none). */
    private string $lastBodilessBytes = '';

    /** What each request without a pending body is a copy of (Request::withParsedHead()). */
    private readonly Request $blank;

    public function __construct(
        private readonly HttpLimits $limits = new HttpLimits(),
        private readonly ?string $remoteAddress = null,
    ) {
        $this->blank = new Request('GET', '/', '1.1', [], '', [], $remoteAddress, $limits);
    }

    public function feed(string $bytes): void
    {
        if ($this->failure !== null || $bytes === '') {
            return;
        }
        if ($this->offset === 0) {
            $this->buffer .= $bytes;
        } elseif ($this->offset >= \strlen($this->buffer)) {
            $this->buffer = $bytes;
            $this->offset = $this->scanFrom = 0;
        } else {
            $this->buffer = \substr($this->buffer, $this->offset) . $bytes;
            $this->scanFrom = \max(0, $this->scanFrom - $this->offset);
            $this->offset = 0;
        }
    }

    /**
     * @throws HttpException
     * @phpstan-impure
     */
    public function next(): ?Request
    {
        if ($this->failure !== null) {
            throw $this->failure;
        }
        if ($this->offset === \strlen($this->buffer)) {
            return null; // nothing new: what readHead() and readBody() would say, a call less
        }
        if ($this->offset === 0 && $this->buffer === $this->lastBodilessBytes && $this->lastBodiless !== null && $this->state === self::HEAD) {
            // The last bodiless request again, alone in the buffer (a keep-alive client
            // waits for each response): what readHead() would return, without its call.
            $this->offset = \strlen($this->buffer);

            return clone $this->lastBodiless;
        }
        try {
            return $this->state === self::HEAD ? $this->readHead() : $this->readBody();
        } catch (HttpException $e) {
            $this->failure = $e;
            $this->buffer = '';
            $this->offset = $this->scanFrom = 0;
            $this->sink = $this->chunked = null;
            throw $e;
        }
    }

    /** A head asked for "100 Continue" and none of its body has arrived yet. */
    public function expectsContinue(): bool
    {
        return $this->expectContinue && $this->offset === \strlen($this->buffer);
    }

    /** The caller wrote "100 Continue" (or decided not to); do not ask again for this request. */
    public function continueSent(): void
    {
        $this->expectContinue = false;
    }

    /** Bytes of an unfinished request are buffered (false between requests on an idle connection). */
    public function hasPartialRequest(): bool
    {
        return $this->state !== self::HEAD || $this->offset < \strlen($this->buffer);
    }

    /**
     * Hands over the bytes buffered past the last complete request and forgets them: after
     * a 101 Switching Protocols they belong to the new protocol. '' if none.
     */
    public function takeBuffered(): string
    {
        $rest = (string) \substr($this->buffer, $this->offset);
        $this->buffer = '';
        $this->offset = $this->scanFrom = 0;

        return $rest;
    }

    public function isReadingBody(): bool
    {
        return $this->state !== self::HEAD;
    }

    /**
     * Long on purpose: it runs once per request, and each part of it would cost a call.
     * Locates the head, checks and splits it (unless it is the last head again), then
     * decides the framing and returns the request, or starts reading its body.
     */
    private function readHead(): ?Request
    {
        $buffer = $this->buffer;
        $offset = $this->offset;
        $length = \strlen($buffer);
        if ($offset === $length) {
            return null;
        }
        if ($buffer[$offset] === "\r") {
            // RFC 9112 §2.2: ignore empty lines received before the request line.
            while ($offset + 1 < $length && $buffer[$offset] === "\r" && $buffer[$offset + 1] === "\n") {
                $offset += 2;
            }
            $this->offset = $offset;
            if ($offset === $length || ($offset + 1 === $length && $buffer[$offset] === "\r")) {
                return null;
            }
        }
        $end = \strpos($buffer, "\r\n\r\n", $this->scanFrom > $offset ? $this->scanFrom : $offset);
        if ($end === false) {
            $this->scanFrom = \max($offset, $length - 3);
            $error = HeadSyntax::prefixError($buffer, $offset, $length, $this->limits);
            if ($error !== null) {
                throw $error;
            }

            return null;
        }
        $this->offset = $end + 4;
        $this->scanFrom = 0;
        // The try costs nothing until something throws. An error that a shorter prefix of
        // this head already proves wins, as it would have had the head arrived in pieces
        // (see HeadSyntax::prefixError()).
        try {
            $headLength = $end - $offset;
            if ($headLength + 4 > $this->limits->maxHeaderBytes) {
                throw new HttpException(431, 'Request header section too large');
            }
            $head = \substr($buffer, $offset, $headLength);
            if ($head === $this->lastHead) {
                if ($this->lastBodiless !== null) {
                    return clone $this->lastBodiless;
                }
                $method = $this->method;
                $target = $this->target;
                $version = $this->version;
                $headers = $this->headers;
            } else {
                $lines = \explode("\r\n", $head);
                $count = \count($lines);
                if (!FieldLines::isBlockSafe($head, $count)) {
                    throw new HttpException(400, 'Invalid character in request head');
                }
                $requestLine = $lines[0];
                $parts = \explode(' ', $requestLine);
                if (\count($parts) !== 3 || \strlen($requestLine) > $this->limits->maxRequestLineBytes) {
                    throw HeadSyntax::requestLineError($requestLine, $this->limits->maxRequestLineBytes);
                }
                [$method, $target, $version] = $parts;
                if ($version === 'HTTP/1.1') {
                    $version = '1.1';
                } elseif ($version === 'HTTP/1.0') {
                    $version = '1.0';
                } else {
                    throw HeadSyntax::versionError($version);
                }
                if (!isset(self::METHODS[$method]) && !FieldLines::isToken($method)) {
                    throw new HttpException(400, 'Invalid request method');
                }
                if ($target === '' || $target[0] !== '/') {
                    HeadSyntax::checkTarget($method, $target);
                }
                if ($count - 1 > $this->limits->maxHeaderCount) {
                    throw new HttpException(431, 'Too many header fields');
                }
                $headers = FieldLines::parse($lines, 1);
                // RFC 9112 §3.2: an invalid Host is a 400 (HeadSyntax::NOT_IN_HOST says why).
                if (isset($headers['host'][0]) && \strpbrk($headers['host'][0], HeadSyntax::NOT_IN_HOST) !== false) {
                    throw new HttpException(400, 'Invalid Host header');
                }
                if ($target[0] !== '/' && $target !== '*' && $method !== 'CONNECT') {
                    $headers = HeadSyntax::hostOfAbsoluteForm($target, $headers, $version);
                }
                $this->lastHead = $head;
                $this->lastBodiless = null;
                $this->lastBodilessBytes = '';
                $this->method = $method;
                $this->target = $target;
                $this->version = $version;
                $this->headers = $headers;
            }
        } catch (HttpException $e) {
            throw HeadSyntax::prefixError($buffer, $offset, $end + 3, $this->limits) ?? $e;
        }

        if (isset($headers['host'][1]) || ($version === '1.1' && !isset($headers['host']))) {
            throw new HttpException(400, isset($headers['host']) ? 'Multiple Host headers' : 'Missing Host header');
        }
        if (isset($headers['transfer-encoding'])) {
            $this->startChunked($headers, $version);
        } elseif (isset($headers['content-length'])) {
            $bodyLength = HeadSyntax::contentLength($headers['content-length']);
            if ($bodyLength > $this->limits->maxBodyBytes) {
                throw new HttpException(413, 'Request body too large');
            }
            if ($bodyLength !== 0) {
                if ($bodyLength <= $this->limits->bodyMemoryBytes && \strlen($buffer) - $this->offset >= $bodyLength) {
                    $body = \substr($buffer, $this->offset, $bodyLength);
                    $this->offset += $bodyLength;

                    return $this->blank->withParsedHead($method, $target, $version, $headers, $body);
                }
                $this->state = self::LENGTH_BODY;
                $this->remaining = $bodyLength;
                $this->sink = new BodySink($this->limits->bodyMemoryBytes, $bodyLength);
            }
        }
        if ($this->state === self::HEAD) {
            $this->lastBodiless = $this->blank->withParsedHead($method, $target, $version, $headers, '');
            $this->lastBodilessBytes = $head . "\r\n\r\n";

            return clone $this->lastBodiless;
        }
        $this->expectContinue = $version === '1.1' && isset($headers['expect'])
            && \strtolower(\implode(',', $headers['expect'])) === '100-continue';

        return $this->readBody();
    }

    private function readBody(): ?Request
    {
        $available = \strlen($this->buffer) - $this->offset;
        if ($available === 0) {
            return null;
        }
        $this->expectContinue = false;
        $sink = $this->sink ?? throw new \LogicException('No body sink while reading a body');
        if ($this->chunked !== null) {
            $this->offset = $this->chunked->decode($this->buffer, $this->offset);
            if (!$this->chunked->isDone()) {
                return null;
            }
            $trailers = $this->chunked->trailers();
        } else {
            $take = \min($available, $this->remaining);
            $sink->append($take === \strlen($this->buffer) ? $this->buffer : \substr($this->buffer, $this->offset, $take));
            $this->offset += $take;
            $this->remaining -= $take;
            if ($this->remaining !== 0) {
                return null;
            }
            $trailers = [];
        }
        $request = new Request(
            $this->method,
            $this->target,
            $this->version,
            $this->headers,
            $sink->finish(),
            $trailers,
            $this->remoteAddress,
            $this->limits,
        );
        $this->state = self::HEAD;
        $this->sink = $this->chunked = null;

        return $request;
    }

    /** @param array<string, list<string>> $headers */
    private function startChunked(array $headers, string $version): void
    {
        if (isset($headers['content-length'])) {
            throw new HttpException(400, 'Both Transfer-Encoding and Content-Length');
        }
        if ($version === '1.0') {
            throw new HttpException(400, 'Transfer-Encoding in an HTTP/1.0 request');
        }
        if (FieldLines::tokens(\implode(',', $headers['transfer-encoding'])) !== ['chunked']) {
            throw new HttpException(501, 'Unsupported Transfer-Encoding');
        }
        $this->state = self::CHUNKED_BODY;
        $this->sink = new BodySink($this->limits->bodyMemoryBytes);
        $this->chunked = new ChunkedDecoder($this->limits, $this->sink);
    }
}
