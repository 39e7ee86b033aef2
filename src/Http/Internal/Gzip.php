<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\Request;
use Petrel\Http\Response;

/**
 * Optional response compression (ServerConfig::$gzip): string bodies of at least 1 KiB with
 * a textual content type, when the client accepts gzip and nothing is encoded yet.
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
        if (!\is_string($body) || \strlen($body) < self::MIN_BYTES || $response->hasHeader('Content-Encoding')) {
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

        return $response->withBody($compressed)
            ->withHeader('Content-Encoding', 'gzip')
            ->withHeader('Vary', $vary === null || $vary === '' ? 'Accept-Encoding' : "{$vary}, Accept-Encoding");
    }

    private static function accepts(string $acceptEncoding): bool
    {
        foreach (\explode(',', \strtolower($acceptEncoding)) as $item) {
            $parts = \explode(';', \trim($item));
            if ($parts[0] !== 'gzip' && $parts[0] !== '*') {
                continue;
            }
            $q = 1.0;
            foreach (\array_slice($parts, 1) as $parameter) {
                if (\preg_match('/^\s*q\s*=\s*([0-9.]+)\s*$/', $parameter, $m)) {
                    $q = (float) $m[1];
                }
            }

            return $q > 0;
        }

        return false;
    }
}
