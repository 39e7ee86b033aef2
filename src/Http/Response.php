<?php

declare(strict_types=1);

namespace Petrel\Http;

use Petrel\Http\Internal\FieldLines;
use Petrel\Http\Internal\MimeTypes;

/**
 * An HTTP response. Immutable: with*() return modified copies. Header names are
 * case-insensitive and keep the spelling first given; names and values are validated, so
 * CR/LF can never split the response (\ValueError). Framing headers (Content-Length,
 * Transfer-Encoding) are written by the encoder from the body, not taken from here. A 101
 * always carries a Connection header ("Upgrade" unless given): the server relies on it.
 * The status is a final one: 101, or 200–599; the other 1xx are interim responses the
 * server sends itself (100 Continue) and a handler's answer cannot be one (\ValueError).
 *
 * Not final for one reason: a response with after-send callbacks (withAfterSend()) is an
 * Internal\AfterSendResponse, which the connection tells apart with one instanceof per
 * response — asking each response through a method cost ~200 instructions a request
 * (bench/micro/http-instructions.sh), a property of its own ~100. Not meant to be
 * extended otherwise. Over 400 lines: one value, its factories and its checks.
 */
class Response
{
    private int $status;

    /**
     * Lowercase name => [name, value]: the value a string when there is one (nearly every
     * header), a list of two or more otherwise. A list for every header cost an array
     * more per withHeader() (~230 instructions) and a loop more per field in the encoder.
     *
     * @var array<string, array{string, string|list<string>}>
     */
    private array $headers = [];

    /** @var array<string, Cookie> keyed by name, path and domain */
    private array $cookies = [];

    /** @var (\Closure(\Petrel\Socket\Socket, string, UpgradeContext): void)|null see upgrade() */
    private ?\Closure $upgradeHandler = null;

    /** The exception this response was rendered from, kept by its copies: see withRenderedFrom(). */
    private ?\Throwable $renderedFrom = null;

    private const TEXT = ['content-type' => ['Content-Type', 'text/plain; charset=utf-8']];
    private const HTML = ['content-type' => ['Content-Type', 'text/html; charset=utf-8']];
    private const JSON = ['content-type' => ['Content-Type', 'application/json']];
    private const NO_AFTER_SEND_FOR_101 = 'A 101 response has no after-send callbacks: its connection goes to the upgrade handler, which can do the work';

    /** What text(), html() and json() copy for a 200: their Content-Type, no cookies, an empty body. */
    private static ?self $blankText = null;
    private static ?self $blankHtml = null;
    private static ?self $blankJson = null;

    /** @var array<string, string> header names already found valid => lowercase */
    private static array $checkedNames = [];

    /** @param array<string, string|int|list<string|int>> $headers */
    public function __construct(int $status = 200, array $headers = [], private string|ResponseBody $body = '')
    {
        $this->status = $status === 200 ? 200 : self::checkStatus($status);
        foreach ($headers as $name => $value) {
            $key = self::checkName((string) $name);
            $this->headers[$key] = isset($this->headers[$key])
                ? self::added($this->headers[$key], self::checkValues($value))
                : [(string) $name, self::checkValues($value)];
        }
        if ($status === 101) {
            $this->headers['connection'] ??= ['Connection', 'Upgrade'];
        }
    }

    // text(), html() and json() make a 200 (one per request of most apps) inline, as a copy
    // of a blank response of their type: ~350 instructions less than through typed(), which
    // makes the rest, and ~140 less than a copy of one blank response given its headers.

    public static function text(string $text, int $status = 200): self
    {
        if ($status !== 200) {
            return self::typed($status, self::TEXT, $text);
        }
        // Response::$…, not self::$…: only a named class's static property is cached (Scheduler::get()).
        $response = clone (Response::$blankText ??= self::typed(200, self::TEXT, ''));
        $response->body = $text;

        return $response;
    }

    public static function html(string $html, int $status = 200): self
    {
        if ($status !== 200) {
            return self::typed($status, self::HTML, $html);
        }
        $response = clone (Response::$blankHtml ??= self::typed(200, self::HTML, ''));
        $response->body = $html;

        return $response;
    }

    /** @throws \JsonException when $data cannot be encoded */
    public static function json(
        mixed $data,
        int $status = 200,
        int $flags = \JSON_UNESCAPED_SLASHES | \JSON_UNESCAPED_UNICODE,
    ): self {
        $json = \json_encode($data, $flags | \JSON_THROW_ON_ERROR);
        if ($status !== 200) {
            return self::typed($status, self::JSON, $json);
        }
        $response = clone (Response::$blankJson ??= self::typed(200, self::JSON, ''));
        $response->body = $json;

        return $response;
    }

    public static function redirect(string $url, int $status = 302): self
    {
        return new self($status, ['Location' => $url]);
    }

    public static function empty(int $status = 204): self
    {
        return new self($status);
    }

    /** @throws \RuntimeException when the file is not readable */
    public static function file(string $path, ?string $contentType = null): self
    {
        return new self(200, ['Content-Type' => $contentType ?? MimeTypes::fromPath($path)], new FileBody($path));
    }

    /** @param iterable<string> $chunks sent chunked (HTTP/1.1) as they are produced */
    public static function stream(iterable $chunks, string $contentType = 'application/octet-stream'): self
    {
        return new self(200, ['Content-Type' => $contentType], new StreamBody($chunks));
    }

    /**
     * 101 Switching Protocols: once its head is written, the connection leaves HTTP and
     * $onUpgrade($socket, $buffered, $context) runs in the connection's coroutine with the
     * socket, the bytes the client sent past the request ('' normally) and an
     * UpgradeContext that says when the server begins a graceful stop. The handler owns the
     * connection's timeouts; the connection is closed when it returns or throws (a throw
     * is logged like a handler error). Only for HTTP/1.1 requests: a 101 on HTTP/1.0 is
     * answered 500. $headers must name the protocol (Upgrade); "Connection: Upgrade" is
     * added when absent.
     *
     * @param array<string, string|int|list<string|int>> $headers
     * @param \Closure(\Petrel\Socket\Socket, string, UpgradeContext): void $onUpgrade
     */
    public static function upgrade(array $headers, \Closure $onUpgrade): self
    {
        $response = new self(101, $headers);
        if (!isset($response->headers['upgrade'])) {
            throw new \ValueError('A 101 response needs an Upgrade header naming the protocol');
        }
        $response->upgradeHandler = $onUpgrade;

        return $response;
    }

    /** @return (\Closure(\Petrel\Socket\Socket, string, UpgradeContext): void)|null set by upgrade() */
    public function getUpgradeHandler(): ?\Closure
    {
        return $this->upgradeHandler;
    }

    /**
     * A copy marked as rendered from $error (an error page): the mark stays on the copies
     * that with*() make of it, so code further out can tell an error response however
     * much the middleware in between added to it (Web\Error\RenderedError reads it).
     */
    public function withRenderedFrom(?\Throwable $error): self
    {
        $copy = clone $this;
        $copy->renderedFrom = $error;

        return $copy;
    }

    /** The exception this response, or the one it is a copy of, was rendered from; null if none. */
    public function getRenderedFrom(): ?\Throwable
    {
        return $this->renderedFrom;
    }

    /**
     * A copy that runs $callback once it has been written: its last byte handed to the
     * kernel (the client has the response, or will as fast as it reads), or its
     * connection failed on the way. For work the client need not wait for: what a
     * php-fpm app does after fastcgi_finish_request(), Symfony's kernel.terminate.
     *
     * Callbacks run in the order added, on the connection's coroutine (the request's own
     * has ended: its Context and pool leases are gone; the coroutine clients work as
     * anywhere), before the connection reads its next request; in sync mode the worker
     * takes no other request until they have returned. One that throws is logged with the
     * request, and the others still run. The copies with*() make keep them. A 101 cannot
     * have any (its connection goes to the upgrade handler, which can do the work).
     *
     * @param \Closure(): void $callback
     */
    public function withAfterSend(\Closure $callback): self
    {
        if ($this->status === 101) {
            throw new \ValueError(self::NO_AFTER_SEND_FOR_101);
        }
        if ($this instanceof Internal\AfterSendResponse) {
            return $this->withCallback($callback);
        }
        $copy = new Internal\AfterSendResponse($callback);
        foreach (\get_object_vars($this) as $name => $value) {
            $copy->{$name} = $value; // this class's fields: the copy is this response, plus a callback
        }

        return $copy;
    }

    /** @return list<\Closure(): void> see withAfterSend() */
    public function getAfterSend(): array
    {
        return [];
    }

    public function getStatus(): int
    {
        return $this->status;
    }

    public function getReasonPhrase(): string
    {
        return Status::reasonPhrase($this->status);
    }

    public function withStatus(int $status): self
    {
        if ($status === 101 && $this instanceof Internal\AfterSendResponse) {
            throw new \ValueError(self::NO_AFTER_SEND_FOR_101);
        }
        $copy = clone $this;
        $copy->status = self::checkStatus($status);
        if ($status === 101) {
            $copy->headers['connection'] ??= ['Connection', 'Upgrade'];
        }

        return $copy;
    }

    /** @return array<string, list<string>> names as first given */
    public function getHeaders(): array
    {
        $headers = [];
        foreach ($this->headers as [$name, $value]) {
            $headers[$name] = (array) $value;
        }

        return $headers;
    }

    /**
     * Lowercase name => [name as given, the value, or a list of two or more], for the
     * encoder.
     *
     * @internal
     * @return array<string, array{string, string|list<string>}>
     */
    public function getHeaderMap(): array
    {
        return $this->headers;
    }

    public function hasHeader(string $name): bool
    {
        return isset($this->headers[\strtolower($name)]);
    }

    /** Values joined with ', ', or null when absent. */
    public function getHeader(string $name): ?string
    {
        $value = $this->headers[\strtolower($name)][1] ?? null;

        return \is_array($value) ? \implode(', ', $value) : $value;
    }

    /** @param string|int|list<string|int> $value */
    public function withHeader(string $name, string|int|array $value): self
    {
        $copy = clone $this;
        // The usual call (a name set before, one printable value) checked inline, as
        // checkName() and checkValues() would: their two calls cost as much as the checks.
        // Printable, the value has no tab: only spaces to trim (~70 instructions less).
        $copy->headers[Response::$checkedNames[$name] ?? self::checkName($name)] = [
            $name,
            \is_string($value) && \ctype_print($value) ? \trim($value, ' ') : self::checkValues($value),
        ];

        return $copy;
    }

    /** @param string|int|list<string|int> $value */
    public function withAddedHeader(string $name, string|int|array $value): self
    {
        $key = self::checkName($name);
        $copy = clone $this;
        $copy->headers[$key] = isset($copy->headers[$key])
            ? self::added($copy->headers[$key], self::checkValues($value))
            : [$name, self::checkValues($value)];

        return $copy;
    }

    public function withoutHeader(string $name): self
    {
        $copy = clone $this;
        unset($copy->headers[\strtolower($name)]);

        return $copy;
    }

    /** Sets a cookie; replaces one with the same name, path and domain. */
    public function withCookie(Cookie $cookie): self
    {
        $copy = clone $this;
        $copy->cookies[$cookie->name . ';' . $cookie->path . ';' . $cookie->domain] = $cookie;

        return $copy;
    }

    /** Tells the browser to delete a cookie (sends it expired). */
    public function withoutCookie(string $name, ?string $path = '/', ?string $domain = null): self
    {
        return $this->withCookie(Cookie::expired($name, $path, $domain));
    }

    /** @return list<Cookie> */
    public function getCookies(): array
    {
        return \array_values($this->cookies);
    }

    /**
     * The cookies keyed by name, path and domain, for the encoder: getCookies() without
     * the copy.
     *
     * @internal
     * @return array<string, Cookie>
     */
    public function getCookieMap(): array
    {
        return $this->cookies;
    }

    public function getBody(): string|ResponseBody
    {
        return $this->body;
    }

    public function withBody(string|ResponseBody $body): self
    {
        $copy = clone $this;
        $copy->body = $body;

        return $copy;
    }

    /**
     * A response of another status than 200 with one of the header maps above, known to be
     * valid: skips the header checks, and the map is a constant array, shared rather than
     * built per response. (A 200 is a copy of a blank one made here, by the callers:
     * cheaper than the constructor.)
     *
     * @param array<string, array{string, string|list<string>}> $headers
     */
    private static function typed(int $status, array $headers, string $body): self
    {
        $response = new self($status, [], $body);
        // The constant array itself when there is nothing before it (a 101's Connection
        // field): its copies then share it without counting references, ~30 instructions
        // less per withHeader() on them and per response encoded.
        $response->headers = $response->headers === [] ? $headers : $response->headers + $headers;

        return $response;
    }

    private static function checkStatus(int $status): int
    {
        if ($status < 200 && $status !== 101 || $status > 599) {
            throw new \ValueError($status >= 100 && $status < 200
                ? \sprintf('HTTP status %d is an interim response; a response is final: 101 or 200-599', $status)
                : \sprintf('Invalid HTTP status %d', $status));
        }

        return $status;
    }

    private static function checkName(string $name): string
    {
        if (isset(Response::$checkedNames[$name])) {
            return Response::$checkedNames[$name];
        }
        if (!FieldLines::isToken($name)) {
            throw new \ValueError(\sprintf('Invalid header name "%s"', \addcslashes($name, "\0..\37")));
        }
        // An app sets the same few names on every response: remember them, with a bound
        // so that names built from input cannot grow the worker's memory.
        if (\count(Response::$checkedNames) >= 256) {
            Response::$checkedNames = [];
        }

        return Response::$checkedNames[$name] = \strtolower($name);
    }

    /**
     * The value as the header map keeps it: a string for one, a list for more.
     *
     * @param string|int|array<string|int> $value
     * @return string|list<string>
     */
    private static function checkValues(string|int|array $value): string|array
    {
        // The usual call: one value, all printable ASCII, so free of control characters
        // (and of tabs: only spaces to trim); ctype_print() answers that for about a third
        // of the regex's cost.
        if (\is_string($value) && \ctype_print($value)) {
            return \trim($value, ' ');
        }
        $values = [];
        foreach (\is_array($value) ? $value : [$value] as $item) {
            $item = \trim((string) $item, " \t");
            if (!FieldLines::isLineSafe($item)) {
                throw new \ValueError('Header value must not contain CR, LF or other control characters');
            }
            $values[] = $item;
        }
        if ($values === []) {
            throw new \ValueError('A header needs at least one value');
        }

        return isset($values[1]) ? $values : $values[0];
    }

    /**
     * A header map entry with more values after its own.
     *
     * @param array{string, string|list<string>} $field
     * @param string|list<string> $more
     * @return array{string, list<string>}
     */
    private static function added(array $field, string|array $more): array
    {
        return [$field[0], [...(array) $field[1], ...(array) $more]];
    }
}
