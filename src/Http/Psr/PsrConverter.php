<?php

declare(strict_types=1);

namespace Petrel\Http\Psr;

use Nyholm\Psr7\Factory\Psr17Factory;
use Nyholm\Psr7\Response as PsrResponse;
use Nyholm\Psr7\ServerRequest;
use Petrel\Http\FileBody;
use Petrel\Http\HttpException;
use Petrel\Http\Internal\ServerParams;
use Petrel\Http\Internal\TempFiles;
use Petrel\Http\Psr\Internal\BufferedBodyStream;
use Petrel\Http\Psr\Internal\ConvertedResponse;
use Petrel\Http\Psr\Internal\FileBodyStream;
use Petrel\Http\Psr\Internal\PsrUploadedFile;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\ResponseBody;
use Petrel\Http\StreamBody;
use Petrel\Http\UploadedFile;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Message\StreamInterface;
use Psr\Http\Message\UploadedFileInterface;

/**
 * Converts between Petrel's request/response and PSR-7 (nyholm/psr7), in both directions.
 * Bodies are not copied by the conversion: a PSR body made here reads the Petrel body
 * (the string, the file, the generator) only when someone reads it, and converting it back
 * gives the Petrel body itself while it still holds the bytes (see fromPsrBody()).
 */
final class PsrConverter
{
    /** A response body up to this size is read into a string, a larger one streamed. */
    private const STRING_BODY = 1024 * 1024;
    private const CHUNK = 65536;

    private readonly Psr17Factory $factory;

    public function __construct()
    {
        $this->factory = new Psr17Factory();
    }

    /**
     * The request as a PSR-7 ServerRequest: headers, a lazy view of the body (the Request's
     * own body stays usable), query, cookies, parsed body, uploads (PSR views of the same
     * temp files), attributes, and php-fpm's server parameters (see Internal\ServerParams).
     */
    public function toPsrRequest(Request $request): ServerRequestInterface
    {
        $host = $request->getHeader('host');
        $target = $request->getTarget();
        // The parser refuses a Host with a path or userinfo in it (it would move the path);
        // an empty one (allowed) is localhost, a port past 65535 a 400 rather than a 500.
        $uri = \str_starts_with($target, '/') ? 'http://' . ($host === null || $host === '' ? 'localhost' : $host) . $target : $target;
        try {
            $uri = $this->factory->createUri($uri);
        } catch (\InvalidArgumentException $invalid) {
            throw new HttpException(400, 'Invalid Host header or request target', $invalid);
        }
        $body = $request->isBodySpooled()
            ? BufferedBodyStream::ofSharedStream($request->getBodyStream())
            : BufferedBodyStream::ofString($request->getBody());
        // All headers at once: a withHeader() each would clone the request each time.
        $psr = new ServerRequest($request->getMethod(), $uri, $request->getHeaders(), $body, $request->getProtocolVersion(), ServerParams::of($request));
        if ($request->getQueryString() !== '') {
            $psr = $psr->withQueryParams($request->getQuery());
        }
        $cookies = $request->getCookies();
        if ($cookies !== []) {
            $psr = $psr->withCookieParams($cookies);
        }
        $parsed = $request->getParsedBody();
        if ($parsed !== []) {
            $psr = $psr->withParsedBody($parsed);
        }
        $files = $request->getUploadedFiles();
        if ($files !== []) {
            $psr = $psr->withUploadedFiles(self::psrFiles($files));
        }
        foreach ($request->getAttributes() as $name => $value) {
            $psr = $psr->withAttribute($name, $value);
        }

        return $psr;
    }

    public function fromPsrResponse(ResponseInterface $response): Response
    {
        $result = new Response($response->getStatusCode(), [], $this->fromPsrBody($response->getBody()));
        foreach ($response->getHeaders() as $name => $values) {
            $result = $result->withHeader((string) $name, \array_values($values));
        }

        return $result;
    }

    /**
     * A Petrel request from a PSR-7 one. $origin and $originPsr, when given: the Petrel
     * request that $request descends from, and what toPsrRequest() made of it (a PSR-15
     * middleware's "next" has both). Then what the middleware left alone comes from $origin
     * as it is (the body unless written to, the parsed form and its uploads: no copy, no
     * second parse), its protocol version, remote address and trailers are kept, and what
     * the middleware set (withParsedBody(), withQueryParams(), withCookieParams(),
     * withUploadedFiles(), attributes) is what the Petrel handler sees. Without them (a PSR
     * request from elsewhere), non-empty query, cookie and upload params and a parsed body
     * override what the Petrel request would parse itself.
     *
     * A parsed body that is an object (json_decode() without $associative) becomes the
     * array of its public properties, nested stdClass objects too; uploaded files that
     * are not PSR views of Petrel uploads are copied to temp files of their own.
     */
    public function fromPsrRequest(ServerRequestInterface $request, ?Request $origin = null, ?ServerRequestInterface $originPsr = null): Request
    {
        $headers = [];
        foreach ($request->getHeaders() as $name => $values) {
            $headers[\strtolower((string) $name)] = \array_values($values);
        }
        $body = $request->getBody();
        $version = $request->getProtocolVersion();
        $version = $version === '1.0' || $version === '1.1' ? $version : ($origin?->getProtocolVersion() ?? '1.1');
        if ($origin !== null && $originPsr !== null) {
            $keepsBody = $body === $originPsr->getBody() && $body instanceof BufferedBodyStream && !$body->replacesOriginal();
            $converted = new Request(
                $request->getMethod(),
                $request->getRequestTarget(),
                $version,
                $headers,
                $keepsBody ? ($origin->isBodySpooled() ? $origin->getBodyStream() : $origin->getBody()) : self::requestBody($body),
                $origin->getTrailers(),
                $origin->getRemoteAddress(),
            );
            $converted = $this->withParamsOf($converted, $request, $origin, $originPsr);
        } else {
            $converted = $this->withParamsOf(Request::create($request->getMethod(), $request->getRequestTarget(), $headers, (string) $body, $version), $request);
        }
        foreach ($request->getAttributes() as $name => $value) {
            $converted = $converted->withAttribute((string) $name, $value);
        }

        return $converted;
    }

    /**
     * A PSR-7 response whose body is a lazy view of the Petrel one: a FileBody's file is
     * opened, a StreamBody's generator started, only when a middleware reads the body.
     * It and the copies its with*() make are known by descendsFrom().
     */
    public function toPsrResponse(Response $response): ResponseInterface
    {
        $body = $response->getBody();
        $headers = $response->getHeaders();
        foreach ($response->getCookies() as $cookie) {
            $headers['Set-Cookie'][] = $cookie->toHeaderValue(); // merged with a "set-cookie" header
        }

        // All headers at once: a withHeader() each would clone the response each time.
        return ConvertedResponse::of(new PsrResponse(
            $response->getStatus(),
            $headers,
            $body instanceof FileBody ? new FileBodyStream($body) : BufferedBodyStream::ofResponseBody($body),
            '1.1',
            $response->getReasonPhrase(),
        ));
    }

    /**
     * Whether $response is $converted (made by toPsrResponse()) or made from it by with*()
     * calls, whichever they changed (status, headers, body); false for a response built
     * any other way, whatever it copied from $converted (see Internal\ConvertedResponse).
     */
    public function descendsFrom(ResponseInterface $response, ResponseInterface $converted): bool
    {
        return $response instanceof ConvertedResponse && $converted instanceof ConvertedResponse && $response->sharesLineageWith($converted);
    }

    /**
     * The Petrel body to send for a PSR body. One made by toPsrResponse() gives the Petrel
     * body back while that still holds the bytes: a FileBody always (reading the view does
     * not use the file up), a string unless the view was written to, a StreamBody unless
     * its generator was started (then what was read, and the rest of the generator, are
     * sent from the view). Any other stream: a string when its known size is up to 1 MiB,
     * else a StreamBody read from it in chunks as the connection writes it — read whole, a
     * download (a file stream) had to fit in the worker's memory_limit, where PHP's
     * emitters send it chunk by chunk under php-fpm.
     */
    public function fromPsrBody(StreamInterface $body): string|ResponseBody
    {
        if ($body instanceof FileBodyStream) {
            return $body->getFileBody();
        }
        if ($body instanceof BufferedBodyStream) {
            return $body->toResponseBody();
        }
        $seekable = $body->isSeekable();
        if ($seekable) {
            $body->rewind();
        }
        $size = $body->getSize();
        if ($size !== null && $size <= self::STRING_BODY) {
            return $body->getContents();
        }

        // Not seekable: where it stands is unknown, so is how much of $size is left.
        return new StreamBody(self::chunksOf($body), $seekable ? $size : null);
    }

    /** @return \Generator<int, string> */
    private static function chunksOf(StreamInterface $body): \Generator
    {
        try {
            while (!$body->eof()) {
                $chunk = $body->read(self::CHUNK);
                if ($chunk === '') {
                    break;
                }
                yield $chunk;
            }
        } finally {
            $body->close();
        }
    }

    /**
     * A PSR body a middleware gave the request: a string up to 1 MiB, a larger one (or one
     * of unknown size) spooled to a temp stream, as the parser spools a large upload.
     *
     * @return string|resource
     */
    private static function requestBody(StreamInterface $body): mixed
    {
        if ($body->isSeekable()) {
            $body->rewind();
        }
        $size = $body->getSize();
        if ($size !== null && $size <= self::STRING_BODY) {
            return $body->getContents();
        }
        $copy = \fopen('php://temp/maxmemory:1048576', 'w+b') ?: throw new \RuntimeException('Cannot create a temporary stream for a request body');
        while (($chunk = $body->read(self::CHUNK)) !== '') {
            \fwrite($copy, $chunk);
        }
        \rewind($copy);

        return $copy;
    }

    /** Query, cookies, parsed body and uploads of $psr onto $request: see fromPsrRequest(). */
    private function withParamsOf(Request $request, ServerRequestInterface $psr, ?Request $origin = null, ?ServerRequestInterface $originPsr = null): Request
    {
        $query = $psr->getQueryParams();
        /** @var array<string, string> $cookies */
        $cookies = $psr->getCookieParams();
        $parsed = $psr->getParsedBody();
        $files = $psr->getUploadedFiles();
        if ($origin === null || $originPsr === null) {
            $request = $query === [] ? $request : $request->withQuery($query);
            $request = $cookies === [] ? $request : $request->withCookies($cookies);
            $request = $parsed === null ? $request : $request->withParsedBody(self::arrayOf($parsed));

            return $files === [] ? $request : $request->withUploadedFiles(self::petrelFiles($files));
        }

        return $request->withQuery($query)->withCookies($cookies)
            ->withParsedBody($parsed === $originPsr->getParsedBody() ? $origin->getParsedBody() : self::arrayOf($parsed))
            ->withUploadedFiles($files === $originPsr->getUploadedFiles() ? $origin->getUploadedFiles() : self::petrelFiles($files));
    }

    /**
     * @param array<mixed>|object|null $parsed
     * @return array<mixed>
     */
    private static function arrayOf(array|object|null $parsed): array
    {
        return match (true) {
            $parsed === null => [],
            \is_array($parsed) => $parsed,
            default => self::plain(\get_object_vars($parsed)),
        };
    }

    /**
     * Nested stdClass objects as arrays, as json_decode($json, true) would give them.
     *
     * @param array<mixed> $array
     * @return array<mixed>
     */
    private static function plain(array $array): array
    {
        foreach ($array as $key => $value) {
            if ($value instanceof \stdClass) {
                $array[$key] = self::plain(\get_object_vars($value));
            } elseif (\is_array($value)) {
                $array[$key] = self::plain($value);
            }
        }

        return $array;
    }

    /**
     * @param array<mixed> $files
     * @return array<mixed>
     */
    private static function psrFiles(array $files): array
    {
        $converted = [];
        foreach ($files as $key => $file) {
            $converted[$key] = $file instanceof UploadedFile ? new PsrUploadedFile($file) : (\is_array($file) ? self::psrFiles($file) : $file);
        }

        return $converted;
    }

    /**
     * @param array<mixed> $files
     * @return array<string, UploadedFile|array<mixed>>
     */
    private static function petrelFiles(array $files): array
    {
        $converted = [];
        foreach ($files as $key => $file) {
            if ($file instanceof UploadedFileInterface) {
                $converted[(string) $key] = $file instanceof PsrUploadedFile ? $file->getPetrelFile() : self::copiedFile($file);
            } elseif (\is_array($file)) {
                $converted[(string) $key] = self::petrelFiles($file);
            }
        }

        return $converted;
    }

    /** A PSR upload from elsewhere, its content copied to a temp file that it owns. */
    private static function copiedFile(UploadedFileInterface $file): UploadedFile
    {
        if ($file->getError() !== \UPLOAD_ERR_OK) {
            return new UploadedFile(null, $file->getSize() ?? 0, $file->getError(), $file->getClientFilename(), $file->getClientMediaType());
        }
        $owner = new TempFiles();
        $path = $owner->create();
        $target = \fopen($path, 'wb') ?: throw new \RuntimeException('Cannot write a temporary file for an upload');
        $stream = $file->getStream();
        if ($stream->isSeekable()) {
            $stream->rewind();
        }
        $size = 0;
        while (($chunk = $stream->read(self::CHUNK)) !== '') {
            $size += (int) \fwrite($target, $chunk);
        }
        \fclose($target);

        return new UploadedFile($path, $size, \UPLOAD_ERR_OK, $file->getClientFilename(), $file->getClientMediaType(), $owner);
    }
}
