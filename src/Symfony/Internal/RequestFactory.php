<?php

declare(strict_types=1);

namespace Petrel\Symfony\Internal;

use Petrel\Http\Internal\PeerAddress;
use Petrel\Http\Request;
use Petrel\Http\UploadedFile;
use Symfony\Component\HttpFoundation\File\UploadedFile as SymfonyUploadedFile;
use Symfony\Component\HttpFoundation\Request as SymfonyRequest;

/**
 * Builds an HttpFoundation Request from a Petrel Request directly (no PSR-7 step), with
 * the server parameters php-fpm would give a front controller at the document root:
 * REQUEST_URI, QUERY_STRING, SCRIPT_NAME '' (so the base URL is '' and the path info is the
 * path), REMOTE_ADDR/REMOTE_PORT from the peer, SERVER_NAME/SERVER_PORT from the Host
 * header, HTTP_* for every header, CONTENT_TYPE/CONTENT_LENGTH. $server is merged last: it
 * carries what Petrel cannot see, e.g. ['HTTPS' => 'on', 'SERVER_PORT' => '443'] behind a
 * TLS-terminating proxy that is not trusted, or APP_* variables.
 *
 * Trusted proxies work as Symfony documents them (framework.trusted_proxies, or
 * Request::setTrustedProxies() at boot): REMOTE_ADDR is the real peer, so "REMOTE_ADDR"
 * and IP ranges match, and X-Forwarded-* headers arrive as HTTP_X_FORWARDED_*.
 *
 * @internal
 */
final class RequestFactory
{
    private const NO_FILE = ['name' => '', 'type' => '', 'tmp_name' => '', 'error' => \UPLOAD_ERR_NO_FILE, 'size' => 0];

    /** @param array<string, string> $server */
    public function __construct(private readonly array $server = [])
    {
    }

    public function create(Request $request): SymfonyRequest
    {
        $body = $request->isBodySpooled() ? $request->getBodyStream() : $request->getBody();
        return new SymfonyRequest(
            $request->getQuery(),
            $request->getParsedBody(),
            $request->getAttributes(),
            $request->getCookies(),
            self::files($request->getUploadedFiles()),
            $this->serverParams($request),
            $body,
        );
    }

    /** @return array<string, string|int|float> */
    public function serverParams(Request $request): array
    {
        $target = $request->getTarget();
        $query = $request->getQueryString();
        $path = $request->getPath();
        $now = \microtime(true);
        $server = [
            'SERVER_SOFTWARE' => 'Petrel',
            'SERVER_PROTOCOL' => 'HTTP/' . $request->getProtocolVersion(),
            'GATEWAY_INTERFACE' => 'CGI/1.1',
            'REQUEST_METHOD' => $request->getMethod(),
            // absolute-form targets (proxies) become origin-form, as php-fpm behind nginx sees them
            'REQUEST_URI' => \str_starts_with($target, '/') ? $target : ($query === '' ? $path : "{$path}?{$query}"),
            'QUERY_STRING' => $query,
            'SCRIPT_NAME' => '',
            'SCRIPT_FILENAME' => '',
            'PHP_SELF' => '',
            'REQUEST_TIME' => (int) $now,
            'REQUEST_TIME_FLOAT' => $now,
        ];
        [$name, $port] = self::hostAndPort($request->getHeader('host'));
        $server['SERVER_NAME'] = $name;
        $server['SERVER_PORT'] = $port;
        [$remoteAddress, $remotePort] = PeerAddress::split($request->getRemoteAddress());
        if ($remoteAddress !== null) {
            $server['REMOTE_ADDR'] = $remoteAddress;
        }
        if ($remotePort !== null) {
            $server['REMOTE_PORT'] = $remotePort;
        }
        foreach ($request->getHeaders() as $header => $values) {
            if (\str_contains($header, '_')) {
                // X_Forwarded_For would land on X-Forwarded-For's HTTP_X_FORWARDED_FOR and
                // override it (a spoofed client IP behind a trusted proxy): dropped, as nginx
                // and Apache drop such names before php-fpm sees them.
                continue;
            }
            $key = \strtoupper(\str_replace('-', '_', $header));
            $value = \implode($header === 'cookie' ? '; ' : ', ', $values);
            // as php-fpm: Content-Type and Content-Length without the HTTP_ prefix
            $server[$key === 'CONTENT_TYPE' || $key === 'CONTENT_LENGTH' ? $key : 'HTTP_' . $key] = $value;
        }

        return $this->server + $server;
    }

    /**
     * "example.org:8080" → ['example.org', '8080']; "[::1]:8080" → ['[::1]', '8080']; no
     * port → '80' (Petrel serves plain HTTP; TLS ends at a proxy).
     *
     * @return array{string, string}
     */
    private static function hostAndPort(?string $host): array
    {
        if ($host === null || $host === '') {
            return ['localhost', '80'];
        }
        if (\preg_match('/^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/', $host, $m) !== 1) {
            return [$host, '80'];
        }

        return [$m[1], ($m[2] ?? '') !== '' ? $m[2] : '80'];
    }

    /**
     * Petrel uploads as Symfony UploadedFiles in "test" mode (the temp file was not made by
     * PHP's upload handling, so is_uploaded_file() would refuse it; move() renames). An
     * empty file input is passed as PHP would ($_FILES-style, UPLOAD_ERR_NO_FILE), which
     * Symfony's FileBag turns into null.
     *
     * @param array<mixed> $files
     * @return array<mixed>
     */
    private static function files(array $files): array
    {
        $converted = [];
        foreach ($files as $key => $file) {
            if ($file instanceof UploadedFile) {
                $converted[$key] = $file->getError() === \UPLOAD_ERR_NO_FILE ? self::NO_FILE : new SymfonyUploadedFile(
                    $file->getTempPath() ?? '',
                    $file->getClientFilename() ?? '',
                    $file->getClientMediaType(),
                    $file->getError(),
                    true,
                );
            } elseif (\is_array($file)) {
                $converted[$key] = self::files($file);
            }
        }

        return $converted;
    }
}
