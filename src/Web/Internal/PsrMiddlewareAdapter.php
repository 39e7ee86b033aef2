<?php

declare(strict_types=1);

namespace Petrel\Web\Internal;

use Petrel\Http\Psr\PsrConverter;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Petrel\Web\Middleware;
use Psr\Http\Server\MiddlewareInterface;

/**
 * Runs PSR-15 middleware in a Petrel chain. Each call converts the request to PSR-7
 * (nyholm/psr7: headers, query, cookies, parsed body and uploads, attributes, php-fpm's
 * server parameters) and the response back; when the middleware calls its handler, the
 * PSR request goes back to a Petrel request and the inner response to PSR-7. Bodies are
 * lazy views, not copies: a file is opened, a generator started, only if the middleware
 * reads the body. Costs are avoided where the middleware passes things through unchanged:
 * - the same PSR request object given to the handler → the original Petrel request is used
 *   (nothing lost, nothing re-parsed); a rebuilt one keeps what the middleware set (parsed
 *   body, query, cookies, uploads, attributes), the body unless written to, the protocol
 *   version, remote address and trailers;
 * - the inner response returned as is, or made from it by with*() calls (status, headers,
 *   a body replaced: a gzip, a 304) → the inner Petrel response with those changes, so
 *   what PSR-7 cannot carry goes on (Cookie objects, after-send callbacks, the rendered
 *   error, a 101's upgrade); an untouched file or stream body is sent as it was, one read
 *   from a generator or written to from the PSR stream. PsrConverter::descendsFrom()
 *   tells such a response from one the middleware built itself (or kept from another
 *   request), which inherits none of it.
 * Otherwise the response is rebuilt from PSR-7: a string up to 1 MiB, streamed past that.
 * Budget a few microseconds per PSR-15 middleware and request.
 *
 * @internal
 */
final class PsrMiddlewareAdapter implements Middleware
{
    private readonly PsrConverter $converter;

    public function __construct(private readonly MiddlewareInterface $middleware)
    {
        $this->converter = new PsrConverter();
    }

    public function process(Request $request, RequestHandler $next): Response
    {
        $psrRequest = $this->converter->toPsrRequest($request); // its body a lazy view of the request's
        $psrNext = new PsrNextHandler($this->converter, $next, $request, $psrRequest);
        $psrResponse = $this->middleware->process($psrRequest, $psrNext);

        return $psrNext->reuse($psrResponse) ?? $this->converter->fromPsrResponse($psrResponse);
    }

    public function getMiddleware(): MiddlewareInterface
    {
        return $this->middleware;
    }
}
