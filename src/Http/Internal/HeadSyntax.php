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
     * Checks the start of a head whose end has not arrived yet.
     *
     * @throws HttpException 400 for bytes that cannot start a request, 414, 431
     */
    public static function checkIncompleteHead(string $buffer, int $offset, HttpLimits $limits): void
    {
        $available = \strlen($buffer) - $offset;
        // Fail fast on bytes that cannot start a request (a TLS handshake, binary junk)
        // instead of waiting for a blank line that may never come.
        $start = \substr($buffer, $offset, 32);
        $space = \strpos($start, ' ');
        if (!FieldLines::isToken($space === false ? $start : \substr($start, 0, $space))) {
            throw new HttpException(400, 'Malformed request line');
        }
        if ($available > $limits->maxRequestLineBytes) {
            self::checkRequestLineLength($buffer, $offset, $limits->maxRequestLineBytes);
        }
        if ($available >= $limits->maxHeaderBytes) {
            throw new HttpException(431, 'Request header section too large');
        }
    }

    /** @throws HttpException 414 when the line starting at $offset is longer than $limit */
    public static function checkRequestLineLength(string $buffer, int $offset, int $limit): void
    {
        $eol = \strpos($buffer, "\r\n", $offset);
        // Without a line end yet, the last byte may be the CR of one: not counted.
        if (($eol === false ? \strlen($buffer) - 1 : $eol) - $offset > $limit) {
            throw new HttpException(414, 'Request line too long');
        }
    }
}
