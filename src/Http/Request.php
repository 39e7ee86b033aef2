<?php

declare(strict_types=1);

namespace Petrel\Http;

use Petrel\Http\Internal\CookieHeader;
use Petrel\Http\Internal\FieldLines;
use Petrel\Http\Internal\FormData;
use Petrel\Http\Internal\TempFiles;

/**
 * An HTTP request. Built on the hot path, so the constructor only stores the raw parts the
 * parser found; everything derived (path, query, cookies, parsed body, uploads, keep-alive)
 * is computed on first use and cached. Immutable to its users: with*() return copies.
 * (Over 400 lines: one value class, each derived part a getter and a with*().)
 */
final class Request
{
    // The parts derived together are cached together: every property is copied by each
    // with*() (the parser's withParsedHead() once a request, middleware's withAttribute()),
    // ~24 instructions a property.

    /** @var array{string, string}|null path and query string, split from the target */
    private ?array $pathAndQuery = null;

    /** @var array<mixed>|null */
    private ?array $query = null;

    /** @var array<string, string>|null */
    private ?array $cookies = null;

    /**
     * The body's form: its fields, its files, and the owner of the files' temp files, only
     * held (never read) to delete them once the request and its UploadedFile objects are
     * released.
     *
     * @var array{array<mixed>, array<string, UploadedFile|array<mixed>>, TempFiles|null}|null
     */
    private ?array $form = null;

    /** @var resource|null stream copy of a string body, made on demand */
    private $bodyStream = null;

    /** @var array<string, mixed> */
    private array $attributes = [];

    /** @var array<string, string> header names asked for => lowercase, see headerKey() */
    private static array $headerKeys = [];

    /**
     * @param string $protocolVersion '1.0' or '1.1'
     * @param array<string, list<string>> $headers lowercase names (as the parser makes them;
     *        use create() for headers in any other shape)
     * @param string|resource $body the body, or a seekable stream holding it (spooled bodies)
     * @param array<string, list<string>> $trailers chunked trailer fields, lowercase names
     */
    public function __construct(
        // Not readonly, though never written again: a readonly property is initialised
        // through the engine's slow path, and the parser makes one Request per request.
        private string $method,
        private string $target,
        private string $protocolVersion = '1.1',
        private array $headers = [],
        private mixed $body = '',
        private array $trailers = [],
        private ?string $remoteAddress = null,
        private ?HttpLimits $limits = null,
    ) {
        if (!\is_string($body) && !\is_resource($body)) {
            throw new \TypeError('Request body must be a string or a stream resource');
        }
    }

    /**
     * @internal for the parser, which keeps one blank request per connection (its remote
     * address and limits set, nothing else) and calls this on it once per request: a copy
     * with the parts of a new head, ~900 instructions cheaper than the constructor.
     *
     * @param array<string, list<string>> $headers lowercase names
     */
    public function withParsedHead(string $method, string $target, string $protocolVersion, array $headers, string $body): self
    {
        $copy = clone $this;
        $copy->method = $method;
        $copy->target = $target;
        $copy->protocolVersion = $protocolVersion;
        $copy->headers = $headers;
        $copy->body = $body;

        return $copy;
    }

    /**
     * A request for tests and the framework. An absolute $uri sets the Host header; HTTP/1.1
     * requests without one get "Host: localhost"; a non-empty body gets Content-Length.
     *
     * @param array<string, string|list<string>> $headers names in any case
     */
    public static function create(
        string $method,
        string $uri,
        array $headers = [],
        string $body = '',
        string $protocolVersion = '1.1',
    ): self {
        $normalized = [];
        foreach ($headers as $name => $values) {
            foreach ((array) $values as $value) {
                $normalized[\strtolower($name)][] = $value;
            }
        }
        $target = \explode('#', $uri, 2)[0];
        if (\preg_match('~^[A-Za-z][A-Za-z0-9+.-]*://([^/?]*)(.*)$~s', $target, $m) === 1) {
            $normalized['host'] ??= [$m[1]];
            $target = $m[2];
        }
        if ($target === '' || ($target[0] === '?')) {
            $target = '/' . $target;
        }
        if ($protocolVersion === '1.1') {
            $normalized['host'] ??= ['localhost'];
        }
        if ($body !== '' && !isset($normalized['content-length']) && !isset($normalized['transfer-encoding'])) {
            $normalized['content-length'] = [(string) \strlen($body)];
        }

        return new self($method, $target, $protocolVersion, $normalized, $body);
    }

    public function getMethod(): string
    {
        return $this->method;
    }

    /** The request-target exactly as received (origin-form, absolute-form, '*' or authority). */
    public function getTarget(): string
    {
        return $this->target;
    }

    /** Path part of the target, not percent-decoded; '' for CONNECT's authority-form. */
    public function getPath(): string
    {
        return ($this->pathAndQuery ??= $this->splitTarget())[0];
    }

    /** The query string without '?', not decoded ('' when absent). */
    public function getQueryString(): string
    {
        return ($this->pathAndQuery ??= $this->splitTarget())[1];
    }

    /**
     * The query parsed like $_GET.
     *
     * @return array<mixed>
     * @throws HttpException 400 with more than maxFormFields parameters
     */
    public function getQuery(): array
    {
        return $this->query ??= FormData::parseUrlEncoded(
            $this->getQueryString(),
            ($this->limits ?? new HttpLimits())->maxFormFields,
        );
    }

    public function getQueryParam(string $name, mixed $default = null): mixed
    {
        return $this->getQuery()[$name] ?? $default;
    }

    /** '1.0' or '1.1'. */
    public function getProtocolVersion(): string
    {
        return $this->protocolVersion;
    }

    /** @return array<string, list<string>> lowercase names */
    public function getHeaders(): array
    {
        return $this->headers;
    }

    /** All values of a header joined with ', ' (Cookie with '; '), or null when absent. */
    public function getHeader(string $name): ?string
    {
        // Request::$…, not self::$…: only a named class's static property is cached (Scheduler::get()).
        $key = Request::$headerKeys[$name] ?? self::headerKey($name);
        $values = $this->headers[$key] ?? null;
        if ($values === null) {
            return null;
        }

        return isset($values[1]) ? \implode($key === 'cookie' ? '; ' : ', ', $values) : $values[0];
    }

    /** @return list<string> */
    public function getHeaderValues(string $name): array
    {
        return $this->headers[Request::$headerKeys[$name] ?? self::headerKey($name)] ?? [];
    }

    public function hasHeader(string $name): bool
    {
        return isset($this->headers[Request::$headerKeys[$name] ?? self::headerKey($name)]);
    }

    /** @return array<string, list<string>> trailer fields of a chunked body, lowercase names */
    public function getTrailers(): array
    {
        return $this->trailers;
    }

    /**
     * Cookies from the Cookie header(s); values are percent-decoded, first one wins.
     *
     * @return array<string, string>
     */
    public function getCookies(): array
    {
        return $this->cookies ??= CookieHeader::parse($this->headers['cookie'] ?? []);
    }

    public function getCookie(string $name, ?string $default = null): ?string
    {
        return $this->getCookies()[$name] ?? $default;
    }

    /** The whole body as a string (a spooled body is read from its stream each call). */
    public function getBody(): string
    {
        if (\is_string($this->body)) {
            return $this->body;
        }
        \rewind($this->body);

        return (string) \stream_get_contents($this->body);
    }

    /** @return resource a php://temp stream holding the body, rewound to its start */
    public function getBodyStream()
    {
        if (!\is_string($this->body)) {
            \rewind($this->body);

            return $this->body;
        }
        if ($this->bodyStream === null) {
            $this->bodyStream = \fopen('php://temp', 'w+b') ?: throw new \RuntimeException('Cannot open php://temp');
            \fwrite($this->bodyStream, $this->body);
        }
        \rewind($this->bodyStream);

        return $this->bodyStream;
    }

    public function getBodySize(): int
    {
        return \is_string($this->body) ? \strlen($this->body) : (int) (\fstat($this->body)['size'] ?? 0);
    }

    /** Whether the body was spooled to a stream instead of held in a string. */
    public function isBodySpooled(): bool
    {
        return !\is_string($this->body);
    }

    /**
     * Form fields of an application/x-www-form-urlencoded or multipart/form-data body,
     * parsed like $_POST; [] for other media types.
     *
     * @return array<mixed>
     * @throws HttpException 400/413 for a malformed or oversized form
     */
    public function getParsedBody(): array
    {
        return ($this->form ??= $this->parseForm())[0];
    }

    /**
     * Files of a multipart/form-data body, nested like the field names ("docs[]").
     *
     * @return array<string, UploadedFile|array<mixed>>
     */
    public function getUploadedFiles(): array
    {
        return ($this->form ??= $this->parseForm())[1];
    }

    // The with*() below replace what would be derived from the target, headers or body (a
    // PSR-15 middleware's withQueryParams(), withParsedBody()…): nothing is parsed for them.

    /** @param array<mixed> $query what getQuery() gives from now on */
    public function withQuery(array $query): self
    {
        $copy = clone $this;
        $copy->query = $query;

        return $copy;
    }

    /** @param array<string, string> $cookies what getCookies() gives from now on */
    public function withCookies(array $cookies): self
    {
        $copy = clone $this;
        $copy->cookies = $cookies;

        return $copy;
    }

    /**
     * What getParsedBody() gives from now on. The uploaded files stay what they were (none
     * if the body was not parsed yet): set them with withUploadedFiles().
     *
     * @param array<mixed> $data
     */
    public function withParsedBody(array $data): self
    {
        $copy = clone $this;
        $copy->form = [$data, $this->form[1] ?? [], $this->form[2] ?? null];

        return $copy;
    }

    /**
     * What getUploadedFiles() gives from now on. The body's own form is parsed first when
     * it was not yet (its fields are getParsedBody()'s, its files are replaced).
     *
     * @param array<string, UploadedFile|array<mixed>> $files
     */
    public function withUploadedFiles(array $files): self
    {
        $copy = clone $this;
        $copy->form ??= $copy->parseForm();
        $copy->form[1] = $files;

        return $copy;
    }

    public function getAttribute(string $name, mixed $default = null): mixed
    {
        return \array_key_exists($name, $this->attributes) ? $this->attributes[$name] : $default;
    }

    /** @return array<string, mixed> */
    public function getAttributes(): array
    {
        return $this->attributes;
    }

    public function withAttribute(string $name, mixed $value): self
    {
        $copy = clone $this;
        $copy->attributes[$name] = $value;

        return $copy;
    }

    public function withoutAttribute(string $name): self
    {
        $copy = clone $this;
        unset($copy->attributes[$name]);

        return $copy;
    }

    /** The peer's address ("ip:port" or a unix path), when the server knows it. */
    public function getRemoteAddress(): ?string
    {
        return $this->remoteAddress;
    }

    public function withRemoteAddress(?string $address): self
    {
        $copy = clone $this;
        $copy->remoteAddress = $address;

        return $copy;
    }

    /**
     * Whether the client wants the connection kept open: HTTP/1.1 unless "Connection:
     * close", HTTP/1.0 only with "Connection: keep-alive" (tokens, any case).
     */
    public function isKeepAlive(): bool
    {
        $connection = $this->headers['connection'] ?? null;
        if ($connection === null) {
            return $this->protocolVersion === '1.1';
        }
        $tokens = FieldLines::tokens(\implode(',', $connection));
        if (\in_array('close', $tokens, true)) {
            return false;
        }

        return $this->protocolVersion === '1.1' || \in_array('keep-alive', $tokens, true);
    }

    /**
     * The key of a header name in $headers. The getters look up a name asked for before
     * rather than lower-case it again: an app asks for the same few names on every
     * request, and strtolower() (a call, and a new string for a name not in lowercase)
     * costs ~170 instructions more. Bounded, so names taken from input cannot grow the
     * worker's memory.
     */
    private static function headerKey(string $name): string
    {
        if (\count(Request::$headerKeys) >= 256) {
            Request::$headerKeys = [];
        }

        return Request::$headerKeys[$name] = \strtolower($name);
    }

    /**
     * Fields, files and their temp files' owner of the body's form (see $form).
     *
     * @return array{array<mixed>, array<string, UploadedFile|array<mixed>>, TempFiles|null}
     * @throws HttpException 400/413 for a malformed or oversized form
     */
    private function parseForm(): array
    {
        $contentType = $this->getHeader('content-type') ?? '';
        $limits = $this->limits ?? new HttpLimits();
        $mediaType = \strtolower(\trim(\explode(';', $contentType, 2)[0]));
        if ($mediaType === 'application/x-www-form-urlencoded') {
            return [FormData::parseUrlEncoded($this->getBody(), $limits->maxFormFields), [], null];
        }
        if ($mediaType === 'multipart/form-data') {
            $source = \is_string($this->body) ? $this->body : $this->getBodyStream();

            return FormData::parseMultipart($source, $contentType, $limits);
        }

        return [[], [], null];
    }

    /** @return array{string, string} path and query string */
    private function splitTarget(): array
    {
        $target = $this->target;
        $question = \strpos($target, '?');
        $path = $question === false ? $target : \substr($target, 0, $question);
        $queryString = $question === false ? '' : \substr($target, $question + 1);
        if ($path !== '' && $path[0] !== '/' && $path !== '*') {
            $scheme = \strpos($path, '://');
            if ($scheme === false) {
                $path = '';
            } else {
                $slash = \strpos($path, '/', $scheme + 3);
                $path = $slash === false ? '/' : \substr($path, $slash);
            }
        }

        return [$path, $queryString];
    }
}
