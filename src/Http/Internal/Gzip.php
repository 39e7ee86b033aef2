<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\Request;
use Petrel\Http\Response;

/**
 * Optional response compression (ServerConfig::$gzip): string bodies of at least 1 KiB with
 * a textual content type, when the client accepts gzip and nothing is encoded yet. Not a
 * 206 (its Content-Range counts the bytes as they are), nor a response that says
 * Cache-Control: no-transform. A strong ETag becomes weak, as nginx does: the bytes differ.
 *
 * @internal
 */
final class Gzip
{
    private const MIN_BYTES = 1024;
    private const COMPRESSIBLE = '#^(text/|application/(json|javascript|xml|xhtml\+xml|rss\+xml|atom\+xml|x-javascript)|image/svg\+xml)#i';

    public static function maybeCompress(Request $request, Response $response): Response
    {
        $body = $response->getBody();
        if (!\is_string($body) || \strlen($body) < self::MIN_BYTES || $response->hasHeader('Content-Encoding') || $response->getStatus() === 206) {
            return $response;
        }
        if (\stripos($response->getHeader('Cache-Control') ?? '', 'no-transform') !== false) {
            return $response;
        }
        if (!\preg_match(self::COMPRESSIBLE, $response->getHeader('Content-Type') ?? '')) {
            return $response;
        }
        if (!self::accepts($request->getHeader('Accept-Encoding') ?? '')) {
            return $response;
        }
        $compressed = \gzencode($body, 5);
        if ($compressed === false) {
            return $response;
        }
        $vary = $response->getHeader('Vary');
        $compressedResponse = $response->withBody($compressed)->withHeader('Content-Encoding', 'gzip');
        if ($vary === null || $vary === '') {
            $compressedResponse = $compressedResponse->withHeader('Vary', 'Accept-Encoding');
        } elseif (!\preg_match('/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i', $vary)) {
            $compressedResponse = $compressedResponse->withHeader('Vary', "{$vary}, Accept-Encoding");
        }
        $etag = $response->getHeader('ETag');
        if ($etag !== null && \str_starts_with($etag, '"')) {
            $compressedResponse = $compressedResponse->withHeader('ETag', "W/{$etag}");
        }

        return $compressedResponse;
    }

    /** Whether gzip is acceptable: its own q if named (gzip;q=0 refuses it), else the q of "*". */
    private static function accepts(string $acceptEncoding): bool
    {
        $any = null;
        foreach (\explode(',', \strtolower($acceptEncoding)) as $item) {
            $parts = \explode(';', \trim($item));
            $coding = \trim($parts[0]);
            if ($coding !== 'gzip' && $coding !== 'x-gzip' && $coding !== '*') {
                continue;
            }
            $q = 1.0;
            foreach (\array_slice($parts, 1) as $parameter) {
                if (\preg_match('/^\s*q\s*=\s*([0-9.]+)\s*$/', $parameter, $m)) {
                    $q = (float) $m[1];
                }
            }
            if ($coding !== '*') {
                return $q > 0;
            }
            $any = $q > 0;
        }

        return $any ?? false;
    }
}
