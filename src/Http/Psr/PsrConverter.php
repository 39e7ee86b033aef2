<?php

declare(strict_types=1);

namespace Petrel\Http\Psr;

use Nyholm\Psr7\Factory\Psr17Factory;
use Petrel\Http\HttpException;
use Petrel\Http\Internal\PeerAddress;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\StreamBody;
use Petrel\Http\UploadedFile;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Message\StreamInterface;
use Psr\Http\Message\UploadedFileInterface;

/** Converts between Petrel's request/response and PSR-7 (nyholm/psr7), in both directions. */
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

    public function toPsrRequest(Request $request): ServerRequestInterface
    {
        $host = $request->getHeader('host');
        [$remote] = PeerAddress::split($request->getRemoteAddress()); // [::1]:80 → ::1, as php-fpm has it
        $server = ['REQUEST_METHOD' => $request->getMethod(), 'REQUEST_URI' => $request->getTarget(), 'SERVER_PROTOCOL' => 'HTTP/' . $request->getProtocolVersion()];
        if ($remote !== null) {
            $server['REMOTE_ADDR'] = $remote;
        }
        $target = $request->getTarget();
        // The parser refuses a Host with a path or userinfo in it (it would move the path);
        // an empty one (allowed) is localhost, a port past 65535 a 400 rather than a 500.
        $uri = \str_starts_with($target, '/') ? 'http://' . ($host === null || $host === '' ? 'localhost' : $host) . $target : $target;
        try {
            $uri = $this->factory->createUri($uri);
        } catch (\InvalidArgumentException $invalid) {
            throw new HttpException(400, 'Invalid Host header or request target', $invalid);
        }
        $psr = $this->factory->createServerRequest($request->getMethod(), $uri, $server)
            ->withProtocolVersion($request->getProtocolVersion())
            ->withQueryParams($request->getQuery())
            ->withCookieParams($request->getCookies())
            ->withBody($this->factory->createStreamFromResource(self::copyOf($request->getBodyStream())));
        foreach ($request->getHeaders() as $name => $values) {
            $psr = $psr->withHeader($name, $values);
        }
        $parsed = $request->getParsedBody();
        if ($parsed !== []) {
            $psr = $psr->withParsedBody($parsed);
        }
        $files = $request->getUploadedFiles();
        if ($files !== []) {
            $psr = $psr->withUploadedFiles($this->convertFiles($files));
        }
        foreach ($request->getAttributes() as $name => $value) {
            $psr = $psr->withAttribute($name, $value);
        }

        return $psr;
    }

    public function fromPsrResponse(ResponseInterface $response): Response
    {
        $result = new Response($response->getStatusCode(), [], self::bodyOf($response->getBody()));
        foreach ($response->getHeaders() as $name => $values) {
            $result = $result->withHeader((string) $name, \array_values($values));
        }

        return $result;
    }

    public function fromPsrRequest(ServerRequestInterface $request): Request
    {
        $headers = [];
        foreach ($request->getHeaders() as $name => $values) {
            $headers[(string) $name] = \array_values($values);
        }
        $uri = $request->getUri();
        $target = $request->getRequestTarget();
        $converted = Request::create($request->getMethod(), $target !== '' ? $target : (string) $uri, $headers, (string) $request->getBody());
        foreach ($request->getAttributes() as $name => $value) {
            $converted = $converted->withAttribute((string) $name, $value);
        }

        return $converted;
    }

    public function toPsrResponse(Response $response): ResponseInterface
    {
        $body = $response->getBody();
        $psr = $this->factory->createResponse($response->getStatus())
            ->withBody($this->factory->createStream(\is_string($body) ? $body : ''));
        foreach ($response->getHeaders() as $name => $values) {
            $psr = $psr->withHeader($name, $values);
        }
        foreach ($response->getCookies() as $cookie) {
            $psr = $psr->withAddedHeader('Set-Cookie', $cookie->toHeaderValue());
        }

        return $psr;
    }

    /**
     * A body of known size up to STRING_BODY bytes as a string; a larger one, or one of
     * unknown size, is read from the PSR stream in chunks as the connection writes it —
     * read whole, a download (a file stream) had to fit in the worker's memory_limit,
     * where PHP's emitters send it chunk by chunk under php-fpm.
     */
    private static function bodyOf(StreamInterface $body): string|StreamBody
    {
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
     * PSR-7 streams close their resource when destroyed: hand them a copy, never the
     * Request's own body stream (code after the PSR handler may still read it).
     *
     * @param resource $stream
     * @return resource
     */
    private static function copyOf(mixed $stream): mixed
    {
        $copy = \fopen('php://temp/maxmemory:1048576', 'w+b');
        if ($copy === false) {
            throw new \RuntimeException('Cannot create a temporary stream for the PSR-7 request body');
        }
        \rewind($stream);
        \stream_copy_to_stream($stream, $copy);
        \rewind($stream);
        \rewind($copy);

        return $copy;
    }

    /**
     * @param array<mixed> $files
     * @return array<mixed>
     */
    private function convertFiles(array $files): array
    {
        $converted = [];
        foreach ($files as $key => $file) {
            $converted[$key] = $file instanceof UploadedFile ? $this->convertFile($file) : (\is_array($file) ? $this->convertFiles($file) : $file);
        }

        return $converted;
    }

    private function convertFile(UploadedFile $file): UploadedFileInterface
    {
        // A failed upload (an empty file input: UPLOAD_ERR_NO_FILE) has no content: an
        // empty stream, and the error says why, as PHP's $_FILES does.
        return $this->factory->createUploadedFile(
            $file->getError() === \UPLOAD_ERR_OK ? $this->factory->createStreamFromResource($file->getStream()) : $this->factory->createStream(''),
            $file->getSize(),
            $file->getError(),
            $file->getClientFilename(),
            $file->getClientMediaType(),
        );
    }
}
