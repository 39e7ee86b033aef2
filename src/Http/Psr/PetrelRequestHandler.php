<?php

declare(strict_types=1);

namespace Petrel\Http\Psr;

use Petrel\Http\Psr\Internal\RoundTrip;
use Petrel\Http\RequestHandler;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\ServerRequestInterface;
use Psr\Http\Server\RequestHandlerInterface;

/**
 * Exposes a Petrel handler as a PSR-15 handler (e.g. as the "next" of PSR-15 middleware).
 * Within an app run by PsrRequestHandler (its request carries the round trip), the Petrel
 * handler gets the original Petrel request and its response keeps what PSR-7 cannot carry
 * (see PsrRequestHandler); elsewhere the request is converted from PSR-7 and the response
 * to it, no more.
 */
final class PetrelRequestHandler implements RequestHandlerInterface
{
    private readonly PsrConverter $converter;

    public function __construct(private readonly RequestHandler $handler)
    {
        $this->converter = new PsrConverter();
    }

    public function handle(ServerRequestInterface $request): ResponseInterface
    {
        $trip = $request->getAttribute(PsrRequestHandler::ROUND_TRIP_ATTRIBUTE);
        if (!$trip instanceof RoundTrip) {
            return $this->converter->toPsrResponse($this->handler->handle($this->converter->fromPsrRequest($request)));
        }
        $response = $this->handler->handle($trip->petrelRequest($request, $this->converter));

        return $trip->record($response, $this->converter->toPsrResponse($response));
    }
}
