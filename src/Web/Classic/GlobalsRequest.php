<?php

declare(strict_types=1);

namespace Petrel\Web\Classic;

use Petrel\Http\Request;

/**
 * A Petrel Request built from what a classic SAPI (php-fpm, `php -S`, mod_php) gives a
 * script: $_SERVER for the request line, headers and peer; php://input for the body.
 *
 * The Request parses the query, cookies and form bodies itself, from the raw target,
 * Cookie header and body, exactly as in the resident modes — so $_GET, $_COOKIE and
 * $_POST are only used where the SAPI leaves nothing raw to parse. That is the case of
 * multipart/form-data: PHP consumes the body into $_POST and $_FILES and php://input is
 * empty, so the body is rebuilt from them (the files' content read from their temporary
 * copies). An upload PHP rejected (over upload_max_filesize, partial…) arrives as an empty
 * file input (UPLOAD_ERR_NO_FILE).
 */
final class GlobalsRequest
{
    /** Bodies up to this size are read into a string; larger ones stay in a temp stream. */
    private const MEMORY_BODY = 2 * 1024 * 1024;

    public static function fromGlobals(): Request
    {
        return self::fromArrays($_SERVER, $_POST, $_FILES, $_COOKIE, 'php://input');
    }

    /**
     * @param array<mixed> $server like $_SERVER
     * @param array<mixed> $post like $_POST (used for multipart bodies only)
     * @param array<mixed> $files like $_FILES (used for multipart bodies only)
     * @param array<mixed> $cookies like $_COOKIE (used when there is no Cookie header)
     * @param string $input where the raw body is (php://input)
     */
    public static function fromArrays(array $server, array $post, array $files, array $cookies, string $input): Request
    {
        $headers = self::headers($server);
        if (!isset($headers['cookie']) && $cookies !== []) {
            $pairs = [];
            foreach ($cookies as $name => $value) {
                if (\is_string($value)) {
                    $pairs[] = $name . '=' . \rawurlencode($value);
                }
            }
            $headers['cookie'] = [\implode('; ', $pairs)];
        }
        $mediaType = \strtolower(\trim(\explode(';', $headers['content-type'][0] ?? '', 2)[0]));
        // PHP parses a multipart body into $_POST and $_FILES and leaves php://input empty;
        // the body is read only if PHP left it (enable_post_data_reading off). A form of
        // nothing but unchecked boxes parses to nothing: an empty form, not a broken one.
        $body = $mediaType === 'multipart/form-data' && ($post !== [] || $files !== []) ? '' : self::readBody($input);
        if ($mediaType === 'multipart/form-data' && $body === '') {
            [$body, $contentType, $length] = MultipartBody::build($post, $files);
            $headers['content-type'] = [$contentType];
            $headers['content-length'] = [(string) $length];
        }
        $protocol = \str_ends_with((string) ($server['SERVER_PROTOCOL'] ?? ''), '/1.0') ? '1.0' : '1.1';
        $remote = isset($server['REMOTE_ADDR']) ? $server['REMOTE_ADDR'] . (isset($server['REMOTE_PORT']) ? ':' . $server['REMOTE_PORT'] : '') : null;

        return new Request(
            \strtoupper((string) ($server['REQUEST_METHOD'] ?? 'GET')),
            self::target($server),
            $protocol,
            $headers,
            $body,
            [],
            \is_string($remote) ? $remote : null,
        );
    }

    /**
     * Request headers from the CGI variables: HTTP_* plus CONTENT_TYPE and CONTENT_LENGTH.
     *
     * @param array<mixed> $server
     * @return array<string, list<string>> lowercase names
     */
    private static function headers(array $server): array
    {
        $headers = [];
        foreach ($server as $key => $value) {
            if (!\is_string($value) && !\is_int($value)) {
                continue;
            }
            $key = (string) $key;
            if (\str_starts_with($key, 'HTTP_')) {
                $name = \strtolower(\str_replace('_', '-', \substr($key, 5)));
            } elseif ($key === 'CONTENT_TYPE' || $key === 'CONTENT_LENGTH') {
                $name = \strtolower(\str_replace('_', '-', $key));
            } else {
                continue;
            }
            if ($value !== '' || $name !== 'content-length') {
                $headers[$name] = [(string) $value];
            }
        }
        if (!isset($headers['authorization']) && \is_string($server['PHP_AUTH_USER'] ?? null)) {
            $headers['authorization'] = ['Basic ' . \base64_encode($server['PHP_AUTH_USER'] . ':' . ($server['PHP_AUTH_PW'] ?? ''))];
        }

        return $headers;
    }

    /** @param array<mixed> $server */
    private static function target(array $server): string
    {
        $uri = (string) ($server['REQUEST_URI'] ?? '/');
        if ($uri === '' || ($uri[0] !== '/' && !\str_contains($uri, '://'))) {
            $uri = '/' . $uri;
        }

        return $uri;
    }

    /** @return string|resource */
    private static function readBody(string $input): mixed
    {
        $source = @\fopen($input, 'rb');
        if ($source === false) {
            return '';
        }
        $body = (string) \stream_get_contents($source, self::MEMORY_BODY + 1);
        if (\strlen($body) <= self::MEMORY_BODY) {
            \fclose($source);

            return $body;
        }
        $spool = \fopen('php://temp', 'w+b') ?: throw new \RuntimeException('Cannot open php://temp');
        \fwrite($spool, $body);
        \stream_copy_to_stream($source, $spool);
        \fclose($source);
        \rewind($spool);

        return $spool;
    }
}
