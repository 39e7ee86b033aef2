<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\Request;
use Petrel\Http\Response;
use Petrel\Http\Status;

/**
 * Optional response compression (ServerConfig::$gzip): string bodies of at least 1 KiB with
 * a textual content type, when the client accepts gzip and nothing is encoded yet. Not a
 * 206 (its Content-Range counts the bytes as they are), nor a response that says
 * Cache-Control: no-transform. A strong ETag becomes weak, as nginx does: the bytes differ.
 *
 * Vary: Accept-Encoding goes on every response that is compressed for a client accepting
 * gzip, whether this client is one or not (nginx's gzip_vary): the identity copy sent to a
 * client without gzip told a shared cache it was the only variant, and it then served it to
 * everyone. Responses no client gets compressed (small, binary, encoded, streamed) do not
 * vary. A 304 repeats the Vary of its 200 (RFC 9110 §15.4.5); having no body to measure,
 * it is judged by the Content-Type it kept (a 304 without one, as StaticFiles makes for
 * files, which are never compressed, gets none).
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
        if (!\is_string($body)) {
            return $response;
        }
        if (\strlen($body) < self::MIN_BYTES) {
            // Only an empty body asks for the status: small responses pay nothing more.
            return $body === '' && $response->getStatus() === Status::NOT_MODIFIED && self::transformable($response)
                ? self::varyOnAcceptEncoding($response)
                : $response;
        }
        if ($response->getStatus() === 206 || !self::transformable($response)) {
            return $response;
        }
        $response = self::varyOnAcceptEncoding($response);
        if (!self::accepts($request->getHeader('Accept-Encoding') ?? '')) {
            return $response;
        }
        $compressed = \gzencode($body, 5);
        if ($compressed === false) {
            return $response;
        }
        $compressedResponse = $response->withBody($compressed)->withHeader('Content-Encoding', 'gzip');
        $etag = $response->getHeader('ETag');
        if ($etag !== null && \str_starts_with($etag, '"')) {
            $compressedResponse = $compressedResponse->withHeader('ETag', "W/{$etag}");
        }

        return $compressedResponse;
    }

    /** Whether the headers let a client accepting gzip get it: a textual type, not encoded, no no-transform. */
    private static function transformable(Response $response): bool
    {
        return !$response->hasHeader('Content-Encoding')
            && \stripos($response->getHeader('Cache-Control') ?? '', 'no-transform') === false
            && \preg_match(self::COMPRESSIBLE, $response->getHeader('Content-Type') ?? '') === 1;
    }

    /** Accept-Encoding added to Vary, unless it is there already or Vary is "*". */
    private static function varyOnAcceptEncoding(Response $response): Response
    {
        $vary = $response->getHeader('Vary');
        if ($vary === null || $vary === '') {
            return $response->withHeader('Vary', 'Accept-Encoding');
        }

        return \preg_match('/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i', $vary) ? $response : $response->withHeader('Vary', "{$vary}, Accept-Encoding");
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
