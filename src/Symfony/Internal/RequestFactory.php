<?php

declare(strict_types=1);

namespace Petrel\Symfony\Internal;

use Petrel\Http\Internal\ServerParams;
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

    /**
     * php-fpm's server parameters (Http\Internal\ServerParams), the ones given to the
     * constructor winning.
     *
     * @return array<string, string|int|float>
     */
    public function serverParams(Request $request): array
    {
        return $this->server + ServerParams::of($request);
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
