<?php

declare(strict_types=1);

namespace Petrel\Http\Internal;

use Petrel\Http\HttpException;
use Petrel\Http\HttpLimits;

/**
 * Request-line and framing rules of RFC 9112 that are off the parser's fast path: the
 * checks for unusual targets, Content-Length lists and the errors for bad request lines.
 *
 * @internal
 */
final class HeadSyntax
{
    /**
     * Bytes that may not appear in a Host, nor in the authority of an absolute-form target
     * (RFC 9112 §3.2: a 400): a path, query, userinfo or fragment delimiter would move a
     * URI built from it ("http://{host}{target}": Host "a.example/admin" prefixed the path).
     */
    public const NOT_IN_HOST = "/?#@\\ \t";

    /** How many bytes at the start of a head prefixError() checks for a method token. */
    private const METHOD_WINDOW = 32;

    /**
     * The body length announced by Content-Length field values: one number, or the same
     * number repeated in several fields or a list (RFC 9112 §6.3 item 5).
     *
     * @param list<string> $values
     * @throws HttpException 400 for anything else, 413 for a number too large for an int
     */
    public static function contentLength(array $values): int
    {
        $value = $values[0];
        if (!isset($values[1]) && \strlen($value) < 19 && \ctype_digit($value)) {
            return (int) $value;
        }
        // Several fields or a list: acceptable only when every member is the same number.
        $members = \array_map(static fn (string $m): string => \trim($m, " \t"), \explode(',', \implode(',', $values)));
        $unique = \array_unique($members);
        $value = $unique[0];
        if (\count($unique) !== 1 || !\ctype_digit($value)) {
            throw new HttpException(400, 'Invalid Content-Length');
        }
        if (\strlen(\ltrim($value, '0')) > 18) {
            throw new HttpException(413, 'Request body too large');
        }

        return (int) $value;
    }

    /** The error for a request line that is not "method SP target SP version". */
    public static function requestLineError(string $line, int $limit): HttpException
    {
        if (\strlen($line) > $limit) {
            return new HttpException(414, 'Request line too long');
        }
        if (\preg_match('~ HTTP/\d\.\d$~', $line) === 1 && !\str_ends_with($line, ' HTTP/1.1') && !\str_ends_with($line, ' HTTP/1.0')) {
            return self::versionError(\substr($line, -8));
        }

        return new HttpException(400, 'Malformed request line');
    }

    /** 505 for a well-formed version other than 1.0/1.1 (HTTP/2 preface included), else 400. */
    public static function versionError(string $version): HttpException
    {
        return \preg_match('~^HTTP/\d\.\d$~', $version) === 1
            ? new HttpException(505, 'HTTP version not supported')
            : new HttpException(400, 'Malformed HTTP version');
    }

    /**
     * Checks a target that is not origin-form: "*" only for OPTIONS, authority-form
     * ("host:port") for CONNECT, absolute-form ("scheme://authority...") otherwise.
     *
     * @throws HttpException 400
     */
    public static function checkTarget(string $method, string $target): void
    {
        $valid = match (true) {
            $target === '*' => $method === 'OPTIONS',
            $method === 'CONNECT' => \preg_match('~^[^/?#@\s]+:\d{1,5}$~', $target) === 1,
            default => \preg_match('~^[A-Za-z][A-Za-z0-9+.-]*://[^/?#\s]~', $target) === 1,
        };
        if (!$valid) {
            throw new HttpException(400, 'Invalid request target');
        }
    }

    /**
     * RFC 9112 §3.2.2: a request in absolute-form ("GET http://a.example/x", as sent to a
     * proxy) names its host in the target, and the server must use that and ignore the Host
     * header, so that the application, which reads Host, sees the host the request was
     * meant for. A target's userinfo ("http://user@host/") is a 400 like a Host's (NOT_IN_HOST). A Host
     * that is missing (HTTP/1.1) or sent twice stays so, for the 400 that follows.
     *
     * @param array<string, list<string>> $headers
     * @return array<string, list<string>>
     */
    public static function hostOfAbsoluteForm(string $target, array $headers, string $version): array
    {
        $start = (int) \strpos($target, '://') + 3;
        $authority = \substr($target, $start, \strcspn($target, '/?#', $start));
        if (\strpbrk($authority, self::NOT_IN_HOST) !== false) {
            throw new HttpException(400, 'Invalid request target');
        }
        $hosts = \count($headers['host'] ?? []);
        if ($hosts === 1 || ($hosts === 0 && $version === '1.0')) {
            $headers['host'] = [$authority];
        }

        return $headers;
    }

    /**
     * The error the first bytes of a head, $buffer from $offset to $end, already prove, or
     * null. The parser asks on every partial head, and again after any other error in a
     * complete head (then $end takes in the first three bytes of the blank line, the longest
     * prefix it could have seen without the blank line), so the status depends on the bytes
     * alone, never on how they were split into reads:
     *  - each check is monotone: a prefix that fails it makes every longer prefix fail it;
     *  - the checks are tried in the order of the shortest prefix that can fail them.
     *
     * In that order: the bytes before the first space (looked at in the first
     * METHOD_WINDOW bytes) are not a token → 400, bytes that cannot start a request (a TLS
     * handshake, binary junk) fail fast instead of waiting for a blank line that never comes;
     * the request line is longer than maxRequestLineBytes → 414 (first failing prefix:
     * limit + 2 bytes); maxHeaderBytes bytes without the blank line → 431 (first failing
     * prefix: limit bytes; tried before 414 when that limit is the smaller).
     */
    public static function prefixError(string $buffer, int $offset, int $end, HttpLimits $limits): ?HttpException
    {
        $available = $end - $offset;
        $lineLimit = $limits->maxRequestLineBytes;
        // The window ends before the first prefix that the length checks can fail.
        $window = \min(self::METHOD_WINDOW, $available, $lineLimit + 1, $limits->maxHeaderBytes - 1);
        if ($window > 0) {
            $start = \substr($buffer, $offset, $window);
            $space = \strpos($start, ' ');
            if (!FieldLines::isToken($space === false ? $start : \substr($start, 0, $space))) {
                return new HttpException(400, 'Malformed request line');
            }
        }
        $tooLarge = $available >= $limits->maxHeaderBytes;
        if ($tooLarge && $limits->maxHeaderBytes < $lineLimit + 2) {
            return new HttpException(431, 'Request header section too large');
        }
        if ($available > $lineLimit) {
            $eol = \strpos($buffer, "\r\n", $offset);
            // Without a line end yet, the last byte may be the CR of one: not counted.
            if (($eol === false || $eol >= $end - 1 ? $end - 1 : $eol) - $offset > $lineLimit) {
                return new HttpException(414, 'Request line too long');
            }
        }

        return $tooLarge ? new HttpException(431, 'Request header section too large') : null;
    }
}
