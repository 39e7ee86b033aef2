<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\Response;
use Petrel\Http\ResponseBody;
use Petrel\Http\Status;

/**
 * Serialises responses for HTTP/1.x (RFC 9112). The status line always says HTTP/1.1 (a
 * server sends its own version, RFC 9110 §6.2); $protocolVersion is the request's and
 * decides framing: a body of unknown length is chunked for 1.1 and delimited by closing
 * the connection for 1.0.
 *
 * Framing headers come from the body: Content-Length for strings and bodies of known
 * length (also on HEAD, as GET would send), Transfer-Encoding: chunked otherwise; none
 * for 1xx/204/304. Content-Length, Transfer-Encoding and Connection set on the response
 * are not copied, except that "Connection: close" closes the connection and a HEAD
 * response with an empty body keeps the Content-Length it was given.
 *
 * How the connection writes a response:
 *   $head = $encoder->encodeHead($response, $version, $keepAlive, $isHead, DateCache::get());
 *   if (ResponseEncoder::sendsBody($response, $isHead)) write the body: a string as is; a
 *   FileBody's bytes; a StreamBody's chunks, framed with chunk()/lastChunk() when
 *   usesChunking() says so; then close when requiresClose() says so.
 * encode() does head and string body in one string.
 *
 * @internal
 */
final class ResponseEncoder
{
    /** Interim response for "Expect: 100-continue". */
    public const CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n";

    private const SKIPPED = ['content-length' => true, 'transfer-encoding' => true, 'connection' => true];

    /** @var array<int, string> */
    private static array $statusLines = [];

    /**
     * The header map of the last response encoded and its fields: most responses of an
     * app share theirs (Response::text()'s is one constant array, and === on the same
     * array is a pointer comparison), so the fields are joined once, not per response.
     *
     * @var array<string, array{string, string|list<string>}>|null
     */
    private ?array $lastHeaders = null;
    private string $lastFields = '';
    /**
     * The Date and Content-Length lines of the last response, reused while the date (it
     * changes once a second) and the length stay the same: a string built less each.
     */
    private string $lastDate = '';
    private string $dateLine = '';
    private int $lastLength = -1;
    private string $lengthLine = '';

    /** @param string|null $serverName Server header for responses that set none; none when null */
    public function __construct(private readonly ?string $serverName = null)
    {
        if ($serverName !== null && !FieldLines::isLineSafe($serverName)) {
            throw new \ValueError('Invalid server name');
        }
    }

    /** Status line, fields and the empty line. */
    public function encodeHead(
        Response $response,
        string $protocolVersion,
        bool $keepAlive,
        bool $headRequest,
        string $dateHeader,
    ): string {
        return $this->encode($response, $protocolVersion, $keepAlive, $headRequest, $dateHeader, false);
    }

    /**
     * Head and, for a string body that is to be sent (and $withBody), the body; only the
     * head otherwise.
     *
     * Once per response, so each part of the response is asked for once, the common case
     * (status 200, no Connection field, HTTP/1.1 kept alive) skips the calls that decide
     * the rare ones, and the parts are joined by one interpolated string (one allocation)
     * rather than appended one by one.
     */
    public function encode(
        Response $response,
        string $protocolVersion,
        bool $keepAlive,
        bool $headRequest,
        string $dateHeader,
        bool $withBody = true,
    ): string {
        $status = $response->getStatus();
        $headers = $response->getHeaderMap();
        $body = $response->getBody();
        // ResponseEncoder::$…, not self::$…: only a named class's static property is cached (Scheduler::get()).
        $statusLine = ResponseEncoder::$statusLines[$status] ??= 'HTTP/1.1 ' . $status . ' ' . Status::reasonPhrase($status) . "\r\n";
        $server = $this->serverName !== null && !isset($headers['server']) ? "Server: {$this->serverName}\r\n" : '';
        if ($dateHeader !== $this->lastDate) {
            $this->lastDate = $dateHeader;
            $this->dateLine = "Date: {$dateHeader}\r\n";
        }
        $date = isset($headers['date']) ? '' : $this->dateLine;
        if ($headers === $this->lastHeaders && $status !== 101) {
            $fields = $this->lastFields;
        } else {
            $fields = '';
            foreach ($headers as $key => [$name, $value]) {
                if (isset(self::SKIPPED[$key]) && !($key === 'connection' && $status === 101)) {
                    continue;
                }
                if (\is_string($value)) { // one value: see Response::$headers
                    $fields .= "{$name}: {$value}\r\n";
                    continue;
                }
                foreach ($value as $item) {
                    $fields .= "{$name}: {$item}\r\n";
                }
            }
            if ($status !== 101) {
                $this->lastHeaders = $headers;
                $this->lastFields = $fields;
            }
        }
        foreach ($response->getCookieMap() as $cookie) {
            $fields .= 'Set-Cookie: ' . $cookie->toHeaderValue() . "\r\n";
        }
        $framing = '';
        $hasBody = $status === 200 || !Status::forbidsBody($status);
        if ($hasBody) {
            $length = \is_string($body) ? \strlen($body) : $body->getLength();
            if ($headRequest && $body === '') {
                // Symfony's prepare() and Slim empty the body of a HEAD answer: its length
                // is not the GET's, so none is said unless stated (RFC 9110 §8.6: a MAY,
                // and if sent it must be the GET's).
                $length = isset($headers['content-length']) ? ((array) $headers['content-length'][1])[0] : null;
            }
            if ($length === $this->lastLength) {
                $framing = $this->lengthLine;
            } elseif ($length !== null) {
                $framing = "Content-Length: {$length}\r\n";
                if (\is_int($length)) {
                    $this->lastLength = $length;
                    $this->lengthLine = $framing;
                }
            } elseif (!$headRequest && $protocolVersion === '1.1') {
                $framing = "Transfer-Encoding: chunked\r\n";
            }
        }
        if (!$keepAlive || (($protocolVersion !== '1.1' || isset($headers['connection']))
                && $this->requiresClose($response, $protocolVersion, $keepAlive, $headRequest))) {
            $connection = "Connection: close\r\n";
        } else {
            $connection = $protocolVersion === '1.0' ? "Connection: keep-alive\r\n" : '';
        }
        if (!$withBody || !$hasBody || $headRequest || !\is_string($body)) {
            $body = '';
        }

        return "{$statusLine}{$server}{$date}{$fields}{$framing}{$connection}\r\n{$body}";
    }

    /** Whether the connection must be closed after this response. */
    public function requiresClose(
        Response $response,
        string $protocolVersion,
        bool $keepAlive,
        bool $headRequest = false,
    ): bool {
        if (!$keepAlive) {
            return true;
        }
        $connection = $response->getHeaderMap()['connection'][1] ?? null;
        if ($connection !== null && \in_array('close', FieldLines::tokens(\implode(',', (array) $connection)), true)) {
            return true;
        }

        return $protocolVersion !== '1.1' && self::hasUnknownLength($response, $headRequest);
    }

    /** Whether the body must be written with chunk()/lastChunk() framing. */
    public function usesChunking(Response $response, string $protocolVersion, bool $headRequest = false): bool
    {
        return $protocolVersion === '1.1' && self::hasUnknownLength($response, $headRequest);
    }

    /** Whether any body bytes follow the head (never for HEAD, 1xx, 204, 304). */
    public static function sendsBody(Response $response, bool $headRequest): bool
    {
        return !$headRequest && !Status::forbidsBody($response->getStatus());
    }

    /** One chunk of a chunked body; '' for empty data (an empty chunk would end the body). */
    public static function chunk(string $data): string
    {
        return $data === '' ? '' : \dechex(\strlen($data)) . "\r\n" . $data . "\r\n";
    }

    /** The last chunk, ending a chunked body (no trailers). */
    public static function lastChunk(): string
    {
        return "0\r\n\r\n";
    }

    private static function hasUnknownLength(Response $response, bool $headRequest): bool
    {
        $body = $response->getBody();

        return $body instanceof ResponseBody && $body->getLength() === null
            && self::sendsBody($response, $headRequest);
    }
}
