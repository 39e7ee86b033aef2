<?php

declare(strict_types=1);

namespace Petrel\Http\Psr;

use Petrel\Http\Psr\Internal\RoundTrip;
use Petrel\Http\Request;
use Petrel\Http\RequestHandler;
use Petrel\Http\Response;
use Psr\Http\Server\RequestHandlerInterface;

/**
 * Runs a PSR-15 request handler (a Slim, Mezzio or hand-made app) unchanged on Petrel.
 *
 * When the app hands the request on to a Petrel handler through a PetrelRequestHandler
 * (the last handler of a middleware pipeline), that handler gets the original Petrel
 * request if the app passed the PSR request on as it was given (else one keeping its body,
 * remote address and trailers), and a response the app returns as it came back, or made
 * from it by with*() calls (headers, status, a replaced body), is the Petrel handler's own
 * response so changed: what PSR-7 cannot carry goes on (Cookie objects, after-send
 * callbacks, the rendered error, a file body sent as a file). A response the app built
 * itself, or kept from another request, inherits none of it.
 */
final class PsrRequestHandler implements RequestHandler
{
    /**
     * The request attribute on the PSR request the app is given: an internal object that
     * lets a PetrelRequestHandler find this request's Petrel request and record its Petrel
     * response. Pass it on; a Petrel handler does not see it. Serialized, it records nothing.
     */
    public const ROUND_TRIP_ATTRIBUTE = 'petrel.psr.round_trip';

    private readonly PsrConverter $converter;

    public function __construct(private readonly RequestHandlerInterface $handler)
    {
        $this->converter = new PsrConverter();
    }

    public function handle(Request $request): Response
    {
        return RoundTrip::run($this->handler, $request, $this->converter);
    }
}
