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
 * (nyholm/psr7: headers, query, cookies, parsed body and uploads, attributes) and the
 * response back; when the middleware calls its handler, the PSR request goes back to a
 * Petrel request and the inner response to PSR-7. Costs are avoided where the middleware
 * passes things through unchanged:
 * - the same PSR request object given to the handler → the original Petrel request is used
 *   (nothing lost, nothing re-parsed);
 * - the inner response returned as is → the original Petrel response (file and streamed
 *   bodies, cookies intact); returned with only status/headers changed (same body stream)
 *   → those changes applied over the original body.
 * Otherwise a request rebuilt from PSR-7 keeps headers, body, attributes and the remote
 * address, and a response rebuilt from PSR-7 has a string body. The PSR request's body is
 * a copy of the Petrel body (a spooled upload is copied to a temp stream): budget a few
 * microseconds per PSR-15 middleware and request, plus the body size.
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
        $psrRequest = $this->converter->toPsrRequest($request); // its body is a copy
        $psrNext = new PsrNextHandler($this->converter, $next, $request, $psrRequest);
        $psrResponse = $this->middleware->process($psrRequest, $psrNext);

        return $psrNext->reuse($psrResponse) ?? $this->converter->fromPsrResponse($psrResponse);
    }

    public function getMiddleware(): MiddlewareInterface
    {
        return $this->middleware;
    }
}
