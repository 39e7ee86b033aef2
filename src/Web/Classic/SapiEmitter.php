<?php

declare(strict_types=1);

namespace Petrel\Web\Classic;

use Petrel\Http\FileBody;
use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\StreamBody;

/**
 * Sends a Petrel Response through a classic SAPI: status with http_response_code(),
 * headers and cookies with header(), the body with echo (a file body is copied, a stream
 * body flushed chunk by chunk). Content-Length is set for bodies of known length; framing
 * is otherwise the SAPI's business. No body for HEAD, 1xx, 204 and 304.
 */
final class SapiEmitter
{
    /**
     * @param Request $request the request answered (its method and protocol version matter)
     * @throws \RuntimeException when output was already sent (headers can no longer be set)
     */
    public static function emit(Response $response, Request $request): void
    {
        if (\headers_sent($file, $line)) {
            throw new \RuntimeException("Cannot send the response: output already started at {$file}:{$line}");
        }
        $status = $response->getStatus();
        $reason = $response->getReasonPhrase();
        if ($reason !== '') {
            // The status line with Petrel's reason phrase: SAPIs lack some (php -S says
            // "422 Unknown Status Code"). php-fpm turns it into "Status: 422 …".
            \header(\sprintf('HTTP/%s %d %s', $request->getProtocolVersion(), $status, $reason), true, $status);
        } else {
            \http_response_code($status);
        }
        foreach ($response->getHeaders() as $name => $values) {
            $lower = \strtolower($name);
            if ($lower === 'content-length' || $lower === 'transfer-encoding') {
                continue; // framing follows the body, below
            }
            foreach ($values as $i => $value) {
                \header("{$name}: {$value}", $i === 0); // the first replaces PHP's own (X-Powered-By…)
            }
        }
        foreach ($response->getCookies() as $cookie) {
            \header('Set-Cookie: ' . $cookie->toHeaderValue(), false);
        }
        if (!$response->hasHeader('content-type')) {
            \ini_set('default_mimetype', ''); // else PHP adds "Content-Type: text/html"
        }
        $body = $response->getBody();
        if ($status < 200 || $status === 204 || $status === 304) {
            return;
        }
        $length = \is_string($body) ? \strlen($body) : $body->getLength();
        if ($length !== null) {
            \header("Content-Length: {$length}");
        }
        if ($request->getMethod() === 'HEAD') {
            return;
        }
        match (true) {
            \is_string($body) => print($body),
            $body instanceof FileBody => self::sendFile($body),
            $body instanceof StreamBody => self::sendStream($body),
            default => throw new \LogicException('Unknown response body ' . $body::class),
        };
    }

    private static function sendFile(FileBody $body): void
    {
        $file = \fopen($body->getPath(), 'rb') ?: throw new \RuntimeException("Cannot open {$body->getPath()}");
        $output = \fopen('php://output', 'wb') ?: throw new \RuntimeException('Cannot open php://output');
        try {
            \stream_copy_to_stream($file, $output, $body->getLength(), $body->getOffset());
        } finally {
            \fclose($file);
            \fclose($output);
        }
    }

    private static function sendStream(StreamBody $body): void
    {
        foreach ($body->getChunks() as $chunk) {
            echo $chunk;
            \flush();
        }
    }
}
